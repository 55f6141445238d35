/**
 * Peers measured beside redeq in the same run: the textbook Redis delayed queue, written
 * here as small as it is in blog posts; Redisson's is used as a library.
 */
@NullMarked
package io.redeq.benchmark.peer;

import org.jspecify.annotations.NullMarked;
