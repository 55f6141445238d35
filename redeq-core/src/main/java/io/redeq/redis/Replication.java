package io.redeq.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;

import io.redeq.RedeqUnavailableException;

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
 * {@code WAIT} blocks the connection it runs on until the replicas answer (usually well
 * under a millisecond on a LAN) or the timeout passes; commands queued behind it on that
 * multiplexed connection wait as long. That is the price of the option, and why it is off
 * by default.
 */
public final class Replication {

	private final ScriptRunner scripts;

	private final KeySpace keys;

	private final int replicas;

	private final Duration timeout;

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
	 * Waits until {@code replicas} replicas acknowledged the writes to the given buckets.
	 * @param what the operation, for the error message
	 * @throws RedeqUnavailableException if fewer replicas acknowledged within the
	 * timeout, or Redis did not answer
	 */
	public void await(Collection<Integer> buckets, String what) {
		if (enabled()) {
			this.scripts.await(awaitAsync(buckets, what), "WAIT " + this.replicas + " after " + what, limit());
		}
	}

	/**
	 * Completes once {@code replicas} replicas acknowledged the writes to the given
	 * buckets, or fails with {@link RedeqUnavailableException} if fewer did within the
	 * timeout or Redis did not answer.
	 * @param what the operation, for the error message
	 * @return the acknowledgement
	 */
	public CompletableFuture<Void> awaitAsync(Collection<Integer> buckets, String what) {
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
