/**
 * redeq's Spring Boot health indicator. Not API.
 */
@NullMarked
package io.redeq.spring.internal.health;

import org.jspecify.annotations.NullMarked;
