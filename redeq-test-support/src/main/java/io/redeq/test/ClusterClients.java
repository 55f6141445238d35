package io.redeq.test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;

/**
 * Lettuce clients of a started {@link RedisCluster}, most of them following its topology
 * as tests that fail nodes over or move slots need: the slot map is read again every
 * second and on every adaptive trigger (MOVED, ASK, a lost connection). It owns the
 * cluster it is given: {@link #close()} shuts every client down, then the cluster.
 *
 * <pre>{@code
 * cluster = new RedisCluster().start();
 * clients = new ClusterClients(cluster);
 * RedisClusterClient client = clients.create();
 * ...
 * clients.close();
 * }</pre>
 */
public final class ClusterClients implements AutoCloseable {

	private final RedisCluster cluster;

	private final List<RedisClusterClient> clients = new CopyOnWriteArrayList<>();

	/** Clients of {@code cluster}, none yet; the cluster is closed with them. */
	public ClusterClients(RedisCluster cluster) {
		this.cluster = cluster;
	}

	/**
	 * A new client, its adaptive refreshes at most every 30 seconds (Lettuce's default).
	 * @return the client, shut down by {@link #close()}
	 */
	public RedisClusterClient create() {
		return create(ClusterTopologyRefreshOptions.builder()
			.enablePeriodicRefresh(Duration.ofSeconds(1))
			.enableAllAdaptiveRefreshTriggers());
	}

	/**
	 * A new client whose adaptive refreshes may follow each other this soon: for tests
	 * that move slots several times in a row.
	 * @param adaptiveTriggersTimeout the shortest time between two adaptive refreshes
	 * @return the client, shut down by {@link #close()}
	 */
	public RedisClusterClient create(Duration adaptiveTriggersTimeout) {
		return create(ClusterTopologyRefreshOptions.builder()
			.enablePeriodicRefresh(Duration.ofSeconds(1))
			.enableAllAdaptiveRefreshTriggers()
			.adaptiveRefreshTriggersTimeout(adaptiveTriggersTimeout));
	}

	/**
	 * A new client with Lettuce's defaults: it reads the slot map when it connects and
	 * then only where a test asks it to, for tests that move no slot.
	 * @return the client, shut down by {@link #close()}
	 */
	public RedisClusterClient createWithoutRefresh() {
		RedisClusterClient client = RedisClusterClient.create(this.cluster.seedUris());
		this.clients.add(client);
		return client;
	}

	private RedisClusterClient create(ClusterTopologyRefreshOptions.Builder refresh) {
		RedisClusterClient client = RedisClusterClient.create(this.cluster.seedUris());
		client.setOptions(ClusterClientOptions.builder().topologyRefreshOptions(refresh.build()).build());
		this.clients.add(client);
		return client;
	}

	/** Shuts every client down (at most two seconds each), then closes the cluster. */
	@Override
	public void close() {
		this.clients.forEach((client) -> client.shutdown(Duration.ZERO, Duration.ofSeconds(2)));
		this.clients.clear();
		this.cluster.close();
	}

}
