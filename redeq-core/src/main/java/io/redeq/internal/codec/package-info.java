/**
 * Turns payloads into JSON text and back, with Jackson, only into the type a listener
 * declares. Not API.
 */
@NullMarked
package io.redeq.internal.codec;

import org.jspecify.annotations.NullMarked;
