package io.redeq.redis;

import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import org.junit.jupiter.api.Test;

import io.redeq.RedeqException;
import io.redeq.RedeqUnavailableException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How a failure reaches redeq's callers: whatever may have left the command run in Redis
 * without an answer is {@link RedeqUnavailableException} (a claim's token is then handed
 * back); an error Redis answered is a plain {@link RedeqException}.
 */
class ScriptRunnerTranslateTests {

	@Test
	void lettucesOwnFailuresWithoutAnAnswerAreUnavailable() {
		// What Lettuce completes a command with when its connection closes under it, e.g.
		// a cluster node's connection dropped after a failover.
		assertThat(ScriptRunner.translate(new CompletionException(new RedisException("Connection closed")), "claim"))
			.isInstanceOf(RedeqUnavailableException.class)
			.hasMessageContaining("claim")
			.hasMessageContaining("Connection closed");
		assertThat(
				ScriptRunner.translate(new RedisException("Currently not connected. Commands are rejected."), "claim"))
			.isInstanceOf(RedeqUnavailableException.class);
		assertThat(ScriptRunner.translate(new RedisConnectionException("refused"), "claim"))
			.isInstanceOf(RedeqUnavailableException.class);
		assertThat(ScriptRunner.translate(new TimeoutException(), "claim"))
			.isInstanceOf(RedeqUnavailableException.class);
	}

	@Test
	void anErrorRedisAnsweredIsARefusal() {
		assertThat(
				ScriptRunner.translate(new RedisCommandExecutionException("CLUSTERDOWN The cluster is down"), "claim"))
			.isExactlyInstanceOf(RedeqException.class)
			.hasMessageContaining("CLUSTERDOWN");
	}

}
