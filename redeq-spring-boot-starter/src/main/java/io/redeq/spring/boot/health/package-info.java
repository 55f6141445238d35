/**
 * redeq's Spring Boot health indicator.
 */
@NullMarked
package io.redeq.spring.boot.health;

import org.jspecify.annotations.NullMarked;
