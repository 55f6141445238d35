/**
 * The connections of redeq's Redis layer: the Lettuce connections redeq shares, the codec
 * that keeps a value's bytes exact, and the error replies that mean Redis refuses for
 * now. Depends on nothing else of redeq's Redis layer. Not API.
 */
@NullMarked
package io.redeq.internal.redis.connection;

import org.jspecify.annotations.NullMarked;
