/**
 * Transaction-aware scheduling: jobs scheduled inside a Spring transaction are sent when
 * it commits and dropped when it rolls back. Not API.
 */
@NullMarked
package io.redeq.spring.internal.transaction;

import org.jspecify.annotations.NullMarked;
