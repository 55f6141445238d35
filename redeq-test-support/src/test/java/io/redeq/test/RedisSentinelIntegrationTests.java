package io.redeq.test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Sentinel setup the failover tests use, with real redis-server and Sentinel
 * processes.
 */
class RedisSentinelIntegrationTests {

	private static final int KEYS = 500;

	/**
	 * A killed master restarts empty. Were it promotable before its first
	 * synchronisation, a stall of the new master longer than down-after-milliseconds
	 * would let Sentinel promote it and the full resync would empty the master holding
	 * the data (reproduced by hand with SIGSTOP on the new master 1.5 s after the
	 * restart). {@code restartAsReplica} returns only once the server holds the data,
	 * with the default priority back.
	 */
	@Test
	void aKilledMasterRestartedAsReplicaHoldsTheDataWhenItBecomesPromotableAgain() {
		try (RedisSentinel sentinel = new RedisSentinel().start()) {
			RedisServer first = sentinel.master();
			List<String> mset = new ArrayList<>(List.of("MSET"));
			for (int i = 0; i < KEYS; i++) {
				mset.add("key-" + i);
				mset.add("value-" + i);
			}
			first.call(mset.toArray(String[]::new));
			assertThat(first.call("WAIT", "1", "5000")).isEqualTo("1");

			first.kill();
			sentinel.awaitFailover(first.port(), Duration.ofSeconds(30));
			sentinel.restartAsReplica(first, Duration.ofSeconds(30));

			assertThat(first.call("INFO", "replication")).contains("role:slave", "master_link_status:up",
					"master_port:" + sentinel.master().port());
			assertThat(first.call("DBSIZE")).isEqualTo(String.valueOf(KEYS));
			assertThat(first.callForList("CONFIG", "GET", "replica-priority")).containsExactly("replica-priority",
					"100");
			assertThat(sentinel.master().call("DBSIZE")).isEqualTo(String.valueOf(KEYS));
		}
	}

}
