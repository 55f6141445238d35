package io.redeq.internal.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;

import io.redeq.RedeqUnavailableException;
import io.redeq.internal.redis.script.ScriptRunner;

/**
 * Waits until replicas acknowledged what this client wrote
 * ({@code WAIT numreplicas timeout}), for {@code redeq.durability.wait-replicas}.
 *
 * <p>
 * {@code WAIT} counts the writes of the connection it is sent on, so it goes to the very
 * connection that ran the schedule script: in standalone (and Sentinel) the shared
 * connection; in a cluster the connection Lettuce keeps to the master that serves the
 * bucket's slot (Lettuce routes slot commands over the node connection keyed by host and
 * port, which {@code getConnectionAsync(host, port)} returns). It is only sent after the
 * script replied, so the script is among the writes it covers.
 *
 * <p>
 * A {@code WAIT} proves nothing when it ran on another connection than the write. Lettuce
 * sends a command again after a reconnect when its reply was lost, so a WAIT in flight
 * when the master died runs again on a new connection, possibly to a new master that
 * never saw the job, and any replica there answers it at once (the new connection wrote
 * nothing). So every connection a write and its WAIT go over is watched, and an
 * acknowledgement is refused when any of them dropped between the {@link #mark mark}
 * taken before the write and the WAIT's answer: the caller is told, and scheduling again
 * under the same id is safe.
 *
 * <p>
 * {@code WAIT} blocks the connection it runs on until the replicas answer (usually well
 * under a millisecond on a LAN) or the timeout passes; commands queued behind it on that
 * multiplexed connection wait as long. That is the price of the option, and why it is off
 * by default.
 */
public final class Replication {

	/** A mark no count matches: the write went out on a connection nobody watched. */
	private static final long UNWATCHED = -1;

	private final ScriptRunner scripts;

	private final KeySpace keys;

	private final int replicas;

	private final Duration timeout;

	/** Disconnects seen on the watched connections, ever. */
	private final AtomicLong disconnects = new AtomicLong();

	private final RedisConnectionStateListener countDisconnects = new RedisConnectionStateListener() {

		@Override
		public void onRedisDisconnected(RedisChannelHandler<?, ?> connection) {
			// Fired on the I/O thread as the channel goes inactive: before a command it
			// held can be sent again, so before any answer from the next connection.
			Replication.this.disconnects.incrementAndGet();
		}

	};

	/**
	 * The connections {@link #countDisconnects} listens on; weak, as Lettuce owns them.
	 */
	private final Set<StatefulConnection<?, ?>> watched = Collections
		.synchronizedSet(Collections.newSetFromMap(new WeakHashMap<>()));

	public Replication(ScriptRunner scripts, KeySpace keys, int replicas, Duration timeout) {
		this.scripts = scripts;
		this.keys = keys;
		this.replicas = replicas;
		this.timeout = timeout;
	}

	/** Whether scheduling waits for replicas at all. */
	public boolean enabled() {
		return this.replicas > 0;
	}

	/**
	 * To be taken right before writing to the given buckets, and handed to
	 * {@link #awaitAsync}: starts watching the connections the write and its WAIT go
	 * over, and returns how many times any watched connection dropped so far.
	 * @param buckets the buckets about to be written
	 * @return the mark
	 */
	public long mark(Collection<Integer> buckets) {
		if (!enabled()) {
			return 0;
		}
		RedisClusterAsyncCommands<String, String> commands;
		try {
			commands = this.scripts.connections().commands();
		}
		catch (RuntimeException ex) {
			// Redis is not reachable: the write fails the same way, and should it get
			// through on a connection opened just after, nothing watched it.
			return UNWATCHED;
		}
		if (commands instanceof RedisAdvancedClusterAsyncCommands<String, String> cluster) {
			StatefulRedisClusterConnection<String, String> connection = cluster.getStatefulConnection();
			for (int bucket : buckets) {
				RedisClusterNode master = connection.getPartitions()
					.getMasterBySlot(SlotHash.getSlot(this.keys.tag(bucket)));
				if (master != null) {
					// Usually open already. One still opening gets its listener as it
					// opens, within moments of the write going out on it: only a drop in
					// those moments of a node's first write would go unseen.
					connection.getConnectionAsync(master.getUri().getHost(), master.getUri().getPort())
						.thenAccept(this::watch);
				}
			}
		}
		else if (commands instanceof RedisAsyncCommands<String, String> standalone) {
			watch(standalone.getStatefulConnection());
		}
		return this.disconnects.get();
	}

	private void watch(StatefulConnection<?, ?> connection) {
		if (this.watched.add(connection)) {
			connection.addListener(this.countDisconnects);
		}
	}

	/**
	 * Completes once {@code replicas} replicas acknowledged the writes to the given
	 * buckets, or fails with {@link RedeqUnavailableException} if fewer did within the
	 * timeout, Redis did not answer, or a watched connection dropped since the mark.
	 * @param what the operation, for the error message
	 * @param mark what {@link #mark} returned before the write
	 * @return the acknowledgement
	 */
	public CompletableFuture<Void> awaitAsync(Collection<Integer> buckets, String what, long mark) {
		if (!enabled()) {
			return CompletableFuture.completedFuture(null);
		}
		Map<String, CompletableFuture<Long>> replies = new LinkedHashMap<>();
		try {
			sendWaits(buckets, what, replies);
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		String operation = "WAIT " + this.replicas + " after " + what;
		CompletableFuture<?>[] all = replies.values().toArray(CompletableFuture[]::new);
		CompletableFuture<Void> result = new CompletableFuture<>();
		CompletableFuture.allOf(all).orTimeout(limit().toMillis(), TimeUnit.MILLISECONDS).whenComplete((ok, ex) -> {
			if (ex != null) {
				result.completeExceptionally(ScriptRunner.translate(ex, operation));
				return;
			}
			if (this.disconnects.get() != mark) {
				result.completeExceptionally(new RedeqUnavailableException(what
						+ " was written but the connection to Redis dropped before replicas acknowledged it (a WAIT "
						+ "answered over a new connection says nothing about it; redeq.durability.wait-replicas="
						+ this.replicas + "); a master failover now could lose it. Scheduling it again under the "
						+ "same id is safe", null));
				return;
			}
			List<String> lacking = new ArrayList<>();
			for (Map.Entry<String, CompletableFuture<Long>> reply : replies.entrySet()) {
				Long acknowledged = reply.getValue().join();
				if (acknowledged == null || acknowledged < this.replicas) {
					lacking.add(((replies.size() > 1) ? reply.getKey() + ": " : "") + "acknowledged by "
							+ ((acknowledged != null) ? acknowledged : 0) + " of " + this.replicas + " replicas");
				}
			}
			if (lacking.isEmpty()) {
				result.complete(null);
			}
			else {
				result.completeExceptionally(new RedeqUnavailableException(what + " was written but "
						+ String.join(", ", lacking) + " within " + this.timeout + " (redeq.durability.wait-replicas="
						+ this.replicas
						+ "); a master failover now could lose it. Scheduling it again under the same id is safe; "
						+ "check the replicas, or lower wait-replicas / raise wait-timeout", null));
			}
		});
		return result;
	}

	/** WAIT's own timeout, and the command timeout for its answer to arrive. */
	private Duration limit() {
		return this.timeout.plus(this.scripts.timeout());
	}

	private void sendWaits(Collection<Integer> buckets, String what, Map<String, CompletableFuture<Long>> replies) {
		RedisClusterAsyncCommands<String, String> commands = this.scripts.connections().commands();
		if (commands instanceof RedisAdvancedClusterAsyncCommands<String, String> cluster) {
			StatefulRedisClusterConnection<String, String> connection = cluster.getStatefulConnection();
			for (int bucket : buckets) {
				RedisClusterNode master = connection.getPartitions()
					.getMasterBySlot(SlotHash.getSlot(this.keys.tag(bucket)));
				if (master == null) {
					throw new RedeqUnavailableException("No master serves bucket " + bucket + " (slot "
							+ SlotHash.getSlot(this.keys.tag(bucket)) + ") to WAIT for replicas after " + what, null);
				}
				RedisURI uri = master.getUri();
				String node = uri.getHost() + ":" + uri.getPort();
				replies.computeIfAbsent(node,
						(n) -> connection.getConnectionAsync(uri.getHost(), uri.getPort())
							.thenCompose((nodeConnection) -> nodeConnection.async()
								.waitForReplication(this.replicas, this.timeout.toMillis()))
							.toCompletableFuture());
			}
		}
		else {
			replies.put("redis",
					commands.waitForReplication(this.replicas, this.timeout.toMillis()).toCompletableFuture());
		}
	}

}
