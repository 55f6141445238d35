/**
 * The journal in the application's database: the transactional outbox, the record of each
 * job's life, the relay of unsent jobs and the recovery of jobs Redis lost. Internal:
 * configured by {@code redeq.journal.*}.
 */
@NullMarked
package io.redeq.spring.internal.journal;

import org.jspecify.annotations.NullMarked;
