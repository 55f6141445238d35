/**
 * Discovery of {@link io.redeq.spring.RedeqListener @RedeqListener} methods and the
 * registry that turns each into a core subscription for the life of the application
 * context. Not API.
 */
@NullMarked
package io.redeq.spring.internal.listener;

import org.jspecify.annotations.NullMarked;
