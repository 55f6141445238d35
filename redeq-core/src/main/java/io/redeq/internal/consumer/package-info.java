/**
 * The consumer runtime: fetches READY jobs into free worker slots, runs handlers under
 * renewed leases, and completes, retries or buries each job. Not API.
 */
@NullMarked
package io.redeq.internal.consumer;

import org.jspecify.annotations.NullMarked;
