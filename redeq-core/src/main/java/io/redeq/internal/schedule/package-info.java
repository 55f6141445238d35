/**
 * The producer side: {@link io.redeq.RedeqClient} on top of the job store. Not API.
 */
@NullMarked
package io.redeq.internal.schedule;

import org.jspecify.annotations.NullMarked;
