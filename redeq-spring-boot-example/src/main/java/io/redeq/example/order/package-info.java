/**
 * The order-timeout example: an unpaid order is cancelled by a delayed job, and paying
 * cancels that job.
 */
@NullMarked
package io.redeq.example.order;

import org.jspecify.annotations.NullMarked;
