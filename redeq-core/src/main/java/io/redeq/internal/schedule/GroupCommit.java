package io.redeq.internal.schedule;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

/**
 * Group commit of single schedule calls, bucket by bucket: while {@code maxInFlight}
 * calls for a bucket are in flight, later requests for that bucket wait and go together
 * in the next call, sent as soon as one in flight answered. Nothing waits for a timer: a
 * request for a bucket with fewer calls in flight is sent at once, so a lone caller sees
 * no added latency, and under load the calls carry as many requests as arrived during a
 * round trip (at most {@code maxPerCall}). Each request's caller gets its own result or
 * failure.
 *
 * <p>
 * Requests of one bucket are sent in the order they arrived, and a call's outcomes come
 * in request order, so each caller's result is its own. A call that fails (Redis refused
 * it, the connection dropped, it timed out) fails the callers of that call only; the next
 * call is sent all the same.
 *
 * @param <R> a request
 * @param <O> the outcome of one request, as a call answers it
 * @param <V> what a caller gets
 */
final class GroupCommit<R, O, V> {

	private final Map<Integer, Lane> lanes = new ConcurrentHashMap<>();

	private final int maxPerCall;

	private final int maxInFlight;

	private final Sender<R, O> sender;

	private final Finisher<R, O, V> finisher;

	GroupCommit(int maxPerCall, int maxInFlight, Sender<R, O> sender, Finisher<R, O, V> finisher) {
		if (maxPerCall < 1) {
			throw new IllegalArgumentException("Requests per call must be at least 1, was " + maxPerCall);
		}
		if (maxInFlight < 1) {
			throw new IllegalArgumentException("Calls in flight per bucket must be at least 1, was " + maxInFlight);
		}
		this.maxPerCall = maxPerCall;
		this.maxInFlight = maxInFlight;
		this.sender = sender;
		this.finisher = finisher;
	}

	/**
	 * Sends a request now if its bucket has fewer than {@code maxInFlight} calls in
	 * flight, else with the bucket's next call.
	 * @param bucket the bucket
	 * @param request the request
	 * @return the caller's result
	 */
	CompletableFuture<V> submit(int bucket, R request) {
		Waiting<R, V> waiting = new Waiting<>(request, new CompletableFuture<>());
		Lane lane = this.lanes.computeIfAbsent(bucket, Lane::new);
		boolean sendNow;
		synchronized (lane) {
			sendNow = lane.inFlight < this.maxInFlight;
			if (sendNow) {
				lane.inFlight++;
			}
			else {
				lane.waiting.add(waiting);
			}
		}
		if (sendNow) {
			send(lane, List.of(waiting));
		}
		return waiting.result;
	}

	/**
	 * Sends a call and, once it answered, the requests that arrived meanwhile. A call
	 * that answers at once (it failed before going out) is settled here, in a loop rather
	 * than a recursion.
	 */
	private void send(Lane lane, List<Waiting<R, V>> first) {
		List<Waiting<R, V>> call = first;
		while (call != null) {
			List<Waiting<R, V>> sent = call;
			CompletableFuture<List<O>> reply = sendSafely(lane.bucket, sent);
			if (!reply.isDone()) {
				reply.whenComplete((outcomes, ex) -> {
					// The next call goes out before this one's callers are woken: it is
					// on the wire while they run their continuations.
					List<Waiting<R, V>> next = lane.next(this.maxPerCall);
					if (next != null) {
						send(lane, next);
					}
					settle(lane.bucket, sent, outcomes, ex);
				});
				return;
			}
			call = lane.next(this.maxPerCall);
			reply.whenComplete((outcomes, ex) -> settle(lane.bucket, sent, outcomes, ex));
		}
	}

	private CompletableFuture<List<O>> sendSafely(int bucket, List<Waiting<R, V>> call) {
		List<R> requests = new ArrayList<>(call.size());
		for (Waiting<R, V> waiting : call) {
			requests.add(waiting.request);
		}
		try {
			return this.sender.send(bucket, requests);
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	private void settle(int bucket, List<Waiting<R, V>> call, @Nullable List<O> outcomes, @Nullable Throwable ex) {
		Throwable failure = ex;
		if (failure == null && (outcomes == null || outcomes.size() != call.size())) {
			failure = new IllegalStateException("A schedule call of " + call.size() + " jobs answered "
					+ ((outcomes != null) ? outcomes.size() : "no") + " outcomes");
		}
		for (int i = 0; i < call.size(); i++) {
			Waiting<R, V> waiting = call.get(i);
			if (failure != null) {
				waiting.result.completeExceptionally(this.finisher.failure(waiting.request, failure));
				continue;
			}
			V value;
			try {
				value = this.finisher.finish(bucket, waiting.request, outcomes.get(i));
			}
			catch (RuntimeException failed) {
				waiting.result.completeExceptionally(failed);
				continue;
			}
			waiting.result.complete(value);
		}
	}

	/** Requests waiting in this bucket, for tests. */
	int waiting(int bucket) {
		Lane lane = this.lanes.get(bucket);
		if (lane == null) {
			return 0;
		}
		synchronized (lane) {
			return lane.waiting.size();
		}
	}

	/** One bucket: its calls in flight, and what waits for the next. */
	private final class Lane {

		private final int bucket;

		private int inFlight;

		private List<Waiting<R, V>> waiting = new ArrayList<>();

		Lane(int bucket) {
			this.bucket = bucket;
		}

		/**
		 * The next call's requests, oldest first, taking the place of a call that
		 * answered; or {@code null} (one call fewer in flight) when none waits.
		 */
		synchronized @Nullable List<Waiting<R, V>> next(int max) {
			if (this.waiting.isEmpty()) {
				this.inFlight--;
				return null;
			}
			if (this.waiting.size() <= max) {
				List<Waiting<R, V>> all = this.waiting;
				this.waiting = new ArrayList<>();
				return all;
			}
			List<Waiting<R, V>> some = new ArrayList<>(this.waiting.subList(0, max));
			this.waiting.subList(0, max).clear();
			return some;
		}

	}

	private record Waiting<R, V>(R request, CompletableFuture<V> result) {
	}

	/** Sends the requests of one bucket as one call. */
	@FunctionalInterface
	interface Sender<R, O> {

		/**
		 * Sends one call; may throw, which fails that call's callers.
		 * @param bucket the bucket
		 * @param requests the requests, in arrival order
		 * @return one outcome per request, in request order
		 */
		CompletableFuture<List<O>> send(int bucket, List<R> requests);

	}

	/** Turns a call's answer into each caller's result. */
	interface Finisher<R, O, V> {

		/**
		 * A caller's result; may throw, which fails that caller only.
		 * @param bucket the bucket
		 * @param request the caller's request
		 * @param outcome its outcome
		 * @return the result
		 */
		V finish(int bucket, R request, O outcome);

		/**
		 * What a caller fails with when its call failed.
		 * @param request the caller's request
		 * @param failure the call's failure
		 * @return the caller's failure
		 */
		Throwable failure(R request, Throwable failure);

	}

}
