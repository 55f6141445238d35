/**
 * The journal in the application's database: the transactional outbox, the record of each
 * job's life, the relay of unsent jobs and the recovery of jobs Redis lost. Internal:
 * configured by {@code redeq.journal.*}.
 *
 * <p>
 * The schema scripts stay at {@code classpath:io/redeq/spring/journal/}, not beside these
 * classes: users point their migration tool or {@code spring.sql.init} at that location.
 */
@NullMarked
package io.redeq.spring.internal.journal;

import org.jspecify.annotations.NullMarked;
