/**
 * {@link io.redeq.RedeqAdmin}: counts, dead-letter inspection, requeue, purge and
 * reshard. Not API.
 */
@NullMarked
package io.redeq.internal.admin;

import org.jspecify.annotations.NullMarked;
