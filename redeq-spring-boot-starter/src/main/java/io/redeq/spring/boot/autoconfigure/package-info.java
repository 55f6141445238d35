/**
 * Auto-configuration of redeq from the application's own Redis connection and its
 * {@code redeq.*} properties.
 */
@NullMarked
package io.redeq.spring.boot.autoconfigure;

import org.jspecify.annotations.NullMarked;
