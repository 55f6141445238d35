/**
 * redeq's Redis layer: the key space, the Lua scripts and the one store through which
 * every job state change goes. Not API.
 */
@NullMarked
package io.redeq.internal.redis;

import org.jspecify.annotations.NullMarked;
