/**
 * redeq's benchmark: the workloads of docs/performance.md run against redeq and its
 * peers.
 */
@NullMarked
package io.redeq.benchmark;

import org.jspecify.annotations.NullMarked;
