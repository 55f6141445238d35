package io.redeq.internal.redis;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link ScriptReply}: the 'topics' answer of migrate and inspect, and the
 * per-job flags of complete and extend. Replies are written as Lettuce hands them over:
 * Lua integers as {@code Long}, Lua strings as {@code String}.
 */
class ScriptReplyTests {

	@Test
	void topicsAnswerNamesTheTopicsWhoseKeysWereMissing() {
		List<Object> reply = List.of("topics", "mail.send", "order.timeout");
		assertThat(ScriptReply.asksForTopics(reply)).isTrue();
		assertThat(ScriptReply.topicsAskedFor(reply)).containsExactly("mail.send", "order.timeout");
	}

	@Test
	void resultIsNotATopicsAnswer() {
		List<Object> reply = List.of(1_700_000_000_000L, -1L, -1L, 1L, 0L, 0L);
		assertThat(ScriptReply.asksForTopics(reply)).isFalse();
		assertThat(ScriptReply.topicsAskedFor(reply)).isEmpty();
		assertThat(ScriptReply.asksForTopics(List.of())).isFalse();
	}

	@Test
	void aTopicNamedTopicsInAResultIsNotTheTopicsAnswer() {
		// Only the first value marks the answer: a migrate result lists topics after
		// seven numbers, and a topic may be called "topics".
		List<Object> reply = List.of(1_700_000_000_000L, -1L, -1L, 1L, 1L, 0L, 0L, "topics", 1L);
		assertThat(ScriptReply.asksForTopics(reply)).isFalse();
	}

	@Test
	void perJobFlagsAreOneForClaimsStillOurs() {
		assertThat(ScriptReply.perJobFlags(List.of(1L, 0L, 1L))).containsExactly(true, false, true);
		assertThat(ScriptReply.perJobFlags(List.of())).isEmpty();
	}

	@Test
	void numbersMayComeAsText() {
		assertThat(ScriptReply.number(42L)).isEqualTo(42);
		assertThat(ScriptReply.number("1700000000000")).isEqualTo(1_700_000_000_000L);
	}

}
