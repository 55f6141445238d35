/**
 * redeq's Spring API: the {@link io.redeq.spring.RedeqListener @RedeqListener}
 * annotation.
 */
@NullMarked
package io.redeq.spring;

import org.jspecify.annotations.NullMarked;
