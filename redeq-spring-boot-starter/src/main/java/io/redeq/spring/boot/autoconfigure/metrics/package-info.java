/**
 * Auto-configuration of redeq's Micrometer metrics.
 */
@NullMarked
package io.redeq.spring.boot.autoconfigure.metrics;

import org.jspecify.annotations.NullMarked;
