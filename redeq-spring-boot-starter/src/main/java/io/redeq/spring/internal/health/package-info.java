/**
 * redeq's Spring Boot health indicator.
 */
@NullMarked
package io.redeq.spring.internal.health;

import org.jspecify.annotations.NullMarked;
