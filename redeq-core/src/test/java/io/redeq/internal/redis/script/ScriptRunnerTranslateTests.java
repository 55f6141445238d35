package io.redeq.internal.redis.script;

import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.redeq.RedeqException;
import io.redeq.RedeqUnavailableException;
import io.redeq.internal.redis.LayoutChangedException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How a failure reaches redeq's callers: whatever may have left the command run in Redis
 * without an answer is {@link RedeqUnavailableException} (a claim's token is then handed
 * back), and so is an error reply by which Redis refuses for a state of its own that
 * passes (out of memory, loading, read-only replica...); any other error Redis answered
 * is a plain {@link RedeqException}.
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
	void aLayoutRefusalIsALayoutChangedExceptionWithRedisItsOwnMessage() {
		// What the key space does before any script on a bucket runs.
		LayoutChangedException.reportedByScripts();
		String reply = "ERR redeq-layout: bucket {p:0:1}:count is frozen while the bucket count of its prefix "
				+ "changes to 8; its jobs are moving to the new layout";
		assertThat(ScriptRunner.translate(new CompletionException(new RedisCommandExecutionException(reply)), "claim"))
			.isExactlyInstanceOf(LayoutChangedException.class)
			.hasMessage(reply);
		assertThat(LayoutChangedException.matches("redeq-layout: without its code")).isTrue();
		assertThat(LayoutChangedException.matches("ERR redeq: something else")).isFalse();
	}

	@Test
	void anErrorAboutTheCommandIsARefusal() {
		assertThat(ScriptRunner.translate(
				new RedisCommandExecutionException("ERR Error running script (call to f_1): @user_script:3: bad"),
				"schedule order-1"))
			.isExactlyInstanceOf(RedeqException.class)
			.hasMessageContaining("schedule order-1")
			.hasMessageContaining("@user_script:3");
		assertThat(ScriptRunner.translate(
				new RedisCommandExecutionException("WRONGTYPE Operation against a key holding the wrong kind of value"),
				"claim"))
			.isExactlyInstanceOf(RedeqException.class);
		// A code must be the whole first word: not a prefix of another one.
		assertThat(ScriptRunner.translate(new RedisCommandExecutionException("OOMPH unknown"), "claim"))
			.isExactlyInstanceOf(RedeqException.class);
	}

	/**
	 * Redis refuses a command for a state of its own that passes (memory full under
	 * noeviction, loading its data, a replica after a failover, the cluster down...),
	 * before writing anything: the caller must retry later, not give the job up.
	 */
	@ParameterizedTest
	@ValueSource(strings = { "OOM command not allowed when used memory > 'maxmemory'.",
			"OOM command not allowed when used memory > 'maxmemory'. script: 1f0c, on @user_script:12.",
			"LOADING Redis is loading the dataset in memory", "READONLY You can't write against a read only replica.",
			"MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.",
			"CLUSTERDOWN The cluster is down", "TRYAGAIN Multiple keys request during rehashing of slot",
			"BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.",
			"NOREPLICAS Not enough good replicas to write.",
			"MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk.",
			// Redis 6.2: the error of a command the script called, inside the script's.
			"ERR Error running script (call to f_1f0c): @user_script:12: -OOM command not allowed when used "
					+ "memory > 'maxmemory'.",
			"ERR Error running script (call to f_1f0c): @user_script:7: -READONLY You can't write against a read "
					+ "only replica." })
	void aRefusalThatPassesWhenRedisRecoversIsUnavailable(String reply) {
		assertThat(ScriptRunner.translate(new CompletionException(new RedisCommandExecutionException(reply)),
				"schedule order-1"))
			.isInstanceOf(RedeqUnavailableException.class)
			.hasMessageContaining("schedule order-1")
			.hasMessageContaining(reply)
			.hasCauseInstanceOf(RedisCommandExecutionException.class);
	}

}
