/**
 * Micrometer Observation around scheduling and handling, and the trace context stored
 * with a job between the two. Not API.
 */
@NullMarked
package io.redeq.internal.observation;

import org.jspecify.annotations.NullMarked;
