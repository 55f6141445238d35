package io.redeq.consumer;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import io.redeq.redis.ClaimedJob;
import io.redeq.redis.RedisJobStore;

/**
 * Completes finished jobs in batches: one complete script per bucket for every job that
 * finished while the previous batch was on its way. The worker that finds no batch in
 * flight sends the next one; the others return at once. A job stays IN_FLIGHT under its
 * lease until its batch lands, so an instance that dies in between only runs it again; it
 * is never lost.
 */
final class Acknowledgements {

	private final RedisJobStore store;

	private final Queue<Pending> queue = new ConcurrentLinkedQueue<>();

	private final AtomicBoolean sending = new AtomicBoolean();

	private final ReentrantLock lock = new ReentrantLock();

	private final Condition idle = this.lock.newCondition();

	Acknowledgements(RedisJobStore store) {
		this.store = store;
	}

	/**
	 * Queues a finished job; {@code outcome} learns whether the claim was still ours. May
	 * send the batch (and others' jobs with it) on the calling thread, and then throws if
	 * Redis failed it.
	 */
	void complete(ClaimedJob job, Outcome outcome) {
		this.queue.add(new Pending(job, outcome));
		sendWhileQueued();
	}

	private void sendWhileQueued() {
		while (!this.queue.isEmpty() && this.sending.compareAndSet(false, true)) {
			try {
				sendBatch();
			}
			finally {
				this.sending.set(false);
				signalIfIdle();
			}
		}
	}

	private void sendBatch() {
		Map<Integer, List<Pending>> byBucket = new LinkedHashMap<>();
		Pending next;
		while ((next = this.queue.poll()) != null) {
			byBucket.computeIfAbsent(next.job().bucket(), (b) -> new ArrayList<>()).add(next);
		}
		record Call(List<Pending> jobs, CompletionStage<List<Boolean>> reply) {
		}
		List<Call> calls = new ArrayList<>();
		byBucket.forEach((bucket, jobs) -> calls
			.add(new Call(jobs, this.store.completeAll(bucket, jobs.stream().map(Pending::job).toList()))));
		RuntimeException failure = null;
		for (Call call : calls) {
			try {
				List<Boolean> completed = this.store.scripts()
					.await(call.reply(), "complete " + call.jobs().size() + " jobs");
				for (int i = 0; i < completed.size(); i++) {
					call.jobs().get(i).outcome().completed(completed.get(i));
				}
			}
			catch (RuntimeException ex) {
				// The jobs stay IN_FLIGHT and run again when their leases expire; the
				// sender logs it.
				failure = (failure != null) ? failure : ex;
			}
		}
		if (failure != null) {
			throw failure;
		}
	}

	private void signalIfIdle() {
		this.lock.lock();
		try {
			this.idle.signalAll();
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Sends what is queued and waits until no batch is on its way, up to
	 * {@code timeoutNanos}.
	 */
	void flush(long timeoutNanos) {
		sendWhileQueued();
		long deadline = System.nanoTime() + timeoutNanos;
		this.lock.lock();
		try {
			while ((this.sending.get() || !this.queue.isEmpty()) && deadline - System.nanoTime() > 0) {
				this.idle.awaitNanos(Math.min(deadline - System.nanoTime(), 50_000_000L));
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		finally {
			this.lock.unlock();
		}
	}

	/** What became of one job's completion. */
	@FunctionalInterface
	interface Outcome {

		/**
		 * {@code stillOurs} is false when the lease had expired and the job was claimed
		 * again.
		 */
		void completed(boolean stillOurs);

	}

	private record Pending(ClaimedJob job, Outcome outcome) {
	}

}
