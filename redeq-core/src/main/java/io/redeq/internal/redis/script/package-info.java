/**
 * The script machinery of redeq's Redis layer: the Lua scripts, the function library that
 * holds them on Redis 7, and the runner that sends them and turns Redis's refusals into
 * redeq's exceptions. Knows nothing of jobs or keys; the stores in
 * {@code io.redeq.internal.redis} build on it. Not API.
 */
@NullMarked
package io.redeq.internal.redis.script;

import org.jspecify.annotations.NullMarked;
