/**
 * Micrometer metrics and the background snapshot behind gauges and health. Not API.
 */
@NullMarked
package io.redeq.internal.metrics;

import org.jspecify.annotations.NullMarked;
