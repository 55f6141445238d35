/**
 * The migrator: moves due jobs from buckets to ready queues, owning a share of the
 * buckets under lease-based locks. Not API.
 */
@NullMarked
package io.redeq.internal.migrator;

import org.jspecify.annotations.NullMarked;
