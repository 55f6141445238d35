package io.redeq.internal.consumer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import io.redeq.RedeqException;
import io.redeq.RedeqUnavailableException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Lost claims on a fake store and a test clock: only a claim whose outcome is unknown is
 * remembered, its first hand-back goes at once and holds the fetcher up while Redis does
 * not answer, later ones back off 1, 2, 4... seconds without holding anything up, the
 * token is forgotten once its lease has passed, and close hands back every one once,
 * stopping at the first Redis does not answer for.
 */
class LostClaimsTests {

	private static final Duration LEASE = Duration.ofSeconds(30);

	private final AtomicLong nanos = new AtomicLong(1_000);

	private final FakeReleases releases = new FakeReleases();

	private final LostClaims lost = new LostClaims(this.releases, "mail", LEASE, this.nanos::get);

	@Test
	void onlyAClaimWhoseOutcomeIsUnknownIsRemembered() {
		this.lost.failed(3, "refused", new RedeqException("ERR script refused"));
		assertThat(this.lost.isEmpty()).as("a refusal Redis answered wrote nothing").isTrue();
		assertThat(this.lost.anyDue()).isFalse();

		this.lost.failed(3, "timed-out", unavailable());
		this.lost.unanswered(4, "hand-off");

		assertThat(this.lost.isEmpty()).isFalse();
		assertThat(this.lost.anyNotHandedBack()).isTrue();
		assertThat(this.lost.anyDue()).isTrue();
	}

	@Test
	void theFirstHandBackGoesAtOnceAndLaterOnesBackOffWithoutHoldingUpTheFetcher() {
		this.lost.failed(3, "token", unavailable());

		assertThat(this.lost.handBack()).as("nothing held under it").isEmpty();
		assertThat(this.lost.anyNotHandedBack()).isFalse();
		assertThat(this.lost.anyDue()).isFalse();

		advance(Duration.ofMillis(999));
		assertThat(this.lost.anyDue()).isFalse();
		assertThat(this.lost.handBack()).isEmpty();
		assertThat(this.releases.calls).as("not its turn: no script").hasSize(1);

		advance(Duration.ofMillis(1));
		assertThat(this.lost.anyDue()).isTrue();
		this.releases.held.put("token", 2L); // a failover: the first answer came from a
												// server without them
		assertThat(this.lost.handBack()).as("the buckets that got jobs back").containsExactly(3);

		advance(Duration.ofMillis(1999));
		assertThat(this.lost.anyDue()).as("the third waits 2 s").isFalse();
		advance(Duration.ofMillis(1));
		assertThat(this.lost.anyDue()).isTrue();
		this.lost.handBack();
		advance(Duration.ofSeconds(4));
		assertThat(this.lost.anyDue()).as("the fourth waits 4 s").isTrue();
		assertThat(this.releases.calls).containsExactly("3/token", "3/token", "3/token");
	}

	@Test
	void aTokenIsForgottenOnceItsLeaseHasPassed() {
		LostClaims shortLease = new LostClaims(this.releases, "mail", Duration.ofMillis(1500), this.nanos::get);
		shortLease.unanswered(5, "token");

		shortLease.handBack();
		assertThat(shortLease.isEmpty()).isFalse();
		advance(Duration.ofSeconds(1));
		shortLease.handBack();
		assertThat(shortLease.isEmpty()).as("handed back at 1 s; its lease ends at 1.5 s").isFalse();
		advance(Duration.ofSeconds(2));
		shortLease.handBack();

		assertThat(shortLease.isEmpty()).isTrue();
		assertThat(this.releases.calls).hasSize(3);
	}

	@Test
	void aFirstHandBackRedisDoesNotAnswerStopsTheFetcherButALaterOneLetsTheOthersGo() {
		this.lost.failed(3, "first", unavailable());
		this.releases.unavailable.add(3);

		assertThatExceptionOfType(RedeqUnavailableException.class).isThrownBy(this.lost::handBack);
		assertThat(this.lost.anyNotHandedBack()).as("tried again at the next round").isTrue();

		this.releases.unavailable.clear();
		this.lost.handBack();
		this.lost.failed(4, "second", unavailable());
		advance(Duration.ofSeconds(1));
		this.releases.unavailable.add(3);
		this.releases.held.put("second", 1L);

		assertThat(this.lost.handBack()).as("bucket 3 does not answer; bucket 4 goes on").containsExactly(4);
		assertThat(this.lost.isEmpty()).as("bucket 3's token is kept for later").isFalse();
		assertThat(this.lost.anyDue()).isFalse();
	}

	@Test
	void closeHandsBackEveryClaimOnceWhateverItsTurnAndStopsAtTheFirstRedisDoesNotAnswer() {
		this.lost.unanswered(1, "a");
		this.lost.unanswered(2, "b");
		this.lost.unanswered(3, "c");
		this.lost.unanswered(4, "d");
		this.releases.held.put("a", 2L);
		this.releases.refused.add(2);
		this.releases.unavailable.add(3);
		this.releases.held.put("d", 5L);

		assertThat(this.lost.handBackAll()).isEqualTo(2);

		assertThat(this.releases.calls).as("one command timeout, not one per claim")
			.containsExactly("1/a", "2/b", "3/c");
		this.releases.unavailable.clear();
		assertThat(this.lost.handBackAll()).as("a refused claim is forgotten; the rest are kept").isEqualTo(5);
		assertThat(this.releases.calls).containsExactly("1/a", "2/b", "3/c", "3/c", "4/d");
		assertThat(this.lost.isEmpty()).isTrue();
	}

	@Test
	void atMostAThousandClaimsAreRemembered() {
		for (int i = 0; i < 1200; i++) {
			this.lost.unanswered(i % 16, "token-" + i);
		}

		this.lost.handBackAll();

		assertThat(this.releases.calls).hasSize(1000);
	}

	private void advance(Duration duration) {
		this.nanos.addAndGet(duration.toNanos());
	}

	private static RedeqUnavailableException unavailable() {
		return new RedeqUnavailableException("Redis did not answer within 1s", new TimeoutException());
	}

	/** Release-claim scripts as Redis would answer them: the jobs held per token. */
	private static final class FakeReleases implements ClaimReleases {

		final List<String> calls = new ArrayList<>();

		final Map<String, Long> held = new HashMap<>();

		final List<Integer> unavailable = new ArrayList<>();

		final List<Integer> refused = new ArrayList<>();

		@Override
		public long releaseClaim(int bucket, String topic, String token) {
			assertThat(topic).isEqualTo("mail");
			this.calls.add(bucket + "/" + token);
			if (this.unavailable.contains(bucket)) {
				throw unavailable();
			}
			if (this.refused.contains(bucket)) {
				throw new RedeqException("ERR release-claim refused");
			}
			Long released = this.held.remove(token);
			return (released != null) ? released : 0;
		}

	}

}
