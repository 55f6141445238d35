/**
 * redeq's Redis layer: the key space and the stores through which every job state change
 * goes, with the records their scripts reply with. The scripts themselves run through
 * {@code io.redeq.internal.redis.script}, over the connections of
 * {@code io.redeq.internal.redis.connection}. Not API.
 */
@NullMarked
package io.redeq.internal.redis;

import org.jspecify.annotations.NullMarked;
