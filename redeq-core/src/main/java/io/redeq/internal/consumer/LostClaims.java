package io.redeq.internal.consumer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.redeq.RedeqException;
import io.redeq.RedeqUnavailableException;
import io.redeq.internal.redis.RedisJobStore;

/**
 * Claims whose reply never arrived. A claim that timed out or lost its connection may
 * still have run in Redis (a command already on the wire is not taken back), leaving its
 * jobs IN_FLIGHT for a consumer that never got them. Each such claim's token is kept, and
 * before the next claim the fetcher hands back whatever is still held under it, with the
 * attempt given back: those jobs were never started, so they must neither wait for their
 * lease nor lose an attempt. The fetcher thread hands back; the migrator's thread may add
 * a hand-off whose reply it lost.
 *
 * <p>
 * One hand-back is not always enough while Redis fails over: it may be answered by a
 * server that does not hold the jobs (a crashed master restarted empty that still
 * believes it serves the bucket, or a slot map not refreshed yet). So a token is handed
 * back again after 1, 2, 4... seconds (a minute at most), and forgotten once the claim's
 * lease has passed, when the lease's expiry returns whatever is left, or after five
 * minutes, by when any failover has long settled. Each hand-back also burns the token
 * (release-claim.lua), so a claim under it that reaches Redis later takes nothing.
 */
final class LostClaims {

	private static final Logger logger = LoggerFactory.getLogger(LostClaims.class);

	private static final int MAX_REMEMBERED = 1000;

	private static final long FIRST_RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

	private static final long MAX_RETRY_NANOS = TimeUnit.SECONDS.toNanos(60);

	/** At most about ten hand-backs of one claim, even under a lease of hours. */
	private static final long MAX_KEPT_NANOS = TimeUnit.MINUTES.toNanos(5);

	private final ClaimReleases store;

	private final String topic;

	private final long keptNanos;

	private final LongSupplier nanoClock;

	private final List<Claim> lost = new CopyOnWriteArrayList<>();

	/**
	 * Lost claims of one consumer, none yet.
	 * @param lease the lease a claim takes its jobs under: how long a token is worth
	 * handing back (five minutes at most)
	 * @param nanoClock {@link System#nanoTime()}, or a test's clock
	 */
	LostClaims(RedisJobStore store, String topic, Duration lease, LongSupplier nanoClock) {
		this(ClaimReleases.of(store), topic, lease, nanoClock);
	}

	/** Lost claims handed back through {@code store}: a test's fake, or Redis. */
	LostClaims(ClaimReleases store, String topic, Duration lease, LongSupplier nanoClock) {
		this.store = store;
		this.topic = topic;
		this.keptNanos = Math.min(lease.toNanos(), MAX_KEPT_NANOS);
		this.nanoClock = nanoClock;
	}

	/**
	 * Remembers a claim whose outcome is unknown; a refusal Redis answered (a script
	 * error) wrote nothing and needs nothing.
	 */
	void failed(int bucket, String token, RedeqException failure) {
		if (failure instanceof RedeqUnavailableException) {
			remember(bucket, token);
		}
	}

	/**
	 * Remembers a claim made for this consumer elsewhere (a migrate's hand-off, on the
	 * migrator's thread) whose reply never arrived or could not be used. Whatever the
	 * failure, the token is handed back: with nothing held under it, that costs one
	 * script and changes nothing.
	 */
	void unanswered(int bucket, String token) {
		remember(bucket, token);
	}

	private void remember(int bucket, String token) {
		if (this.lost.size() < MAX_REMEMBERED) {
			long now = this.nanoClock.getAsLong();
			this.lost.add(new Claim(bucket, token, now + this.keptNanos, now, 0));
		}
	}

	/**
	 * Hands back the jobs of every remembered claim whose turn has come; returns the
	 * buckets that got jobs back. A hand-back that fails is tried again at the next
	 * round.
	 */
	List<Integer> handBack() {
		List<Integer> buckets = new ArrayList<>();
		for (Claim claim : List.copyOf(this.lost)) {
			long now = this.nanoClock.getAsLong();
			if (now - claim.nextTry() < 0) {
				continue;
			}
			long released;
			try {
				released = this.store.releaseClaim(claim.bucket(), this.topic, claim.token());
			}
			catch (RedeqException ex) {
				if (claim.tries() == 0) {
					// The fetcher tries again in a second, and claims nothing before.
					throw ex;
				}
				// A later hand-back is a safety net: it must not keep the fetcher from
				// the other buckets while this one's server does not answer.
				tryLater(claim, now);
				continue;
			}
			tryLater(claim, now);
			if (released > 0) {
				// Found at a later hand-back, the log says so: a server that did not
				// hold them answered the earlier ones (a failover was under way).
				logger.info("Handed back {} jobs of topic '{}' whose claim's reply was lost{}; they run again at once",
						released, this.topic, (claim.tries() == 0) ? "" : ", at hand-back " + (claim.tries() + 1));
				buckets.add(claim.bucket());
			}
		}
		return buckets;
	}

	/** Plans a claim's next hand-back, or forgets it once that is no longer worth it. */
	private void tryLater(Claim claim, long now) {
		this.lost.remove(claim);
		if (claim.forgetAt() - now > 0) {
			this.lost.add(claim.triedAt(now));
		}
	}

	/**
	 * Hands back every remembered claim once, whatever its turn, when the consumer
	 * closes: jobs never started go back to READY at once, as its prefetched ones do.
	 * Stops at the first claim Redis does not answer for (one command timeout, not one
	 * per claim); those jobs run again when their leases expire.
	 * @return the jobs handed back
	 */
	long handBackAll() {
		long released = 0;
		for (Claim claim : List.copyOf(this.lost)) {
			try {
				released += this.store.releaseClaim(claim.bucket(), this.topic, claim.token());
			}
			catch (RedeqUnavailableException ex) {
				logger.warn(
						"Could not hand back the jobs of {} claims of topic '{}' whose reply was lost ({}); "
								+ "they run again when their leases expire",
						this.lost.size(), this.topic, ex.getMessage());
				return released;
			}
			catch (RedeqException ex) {
				logger.warn("Could not hand back the jobs of a claim of topic '{}' whose reply was lost ({}); "
						+ "they run again when their leases expire", this.topic, ex.getMessage());
			}
			this.lost.remove(claim);
		}
		return released;
	}

	/** Whether some claim is remembered, handed back or not. */
	boolean isEmpty() {
		return this.lost.isEmpty();
	}

	/**
	 * Whether a claim waits for its first hand-back, which should go before any other
	 * claim of this consumer (its jobs were due first). Later hand-backs are a safety net
	 * and hold nothing up.
	 */
	boolean anyNotHandedBack() {
		for (Claim claim : this.lost) {
			if (claim.tries() == 0) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Whether some remembered claim's turn has come.
	 */
	boolean anyDue() {
		if (this.lost.isEmpty()) {
			// The fetcher asks before every round: no clock read for nothing.
			return false;
		}
		long now = this.nanoClock.getAsLong();
		for (Claim claim : this.lost) {
			if (now - claim.nextTry() >= 0) {
				return true;
			}
		}
		return false;
	}

	/**
	 * One lost claim: its bucket and token, when it stops being worth a hand-back (its
	 * lease has passed, or five minutes), when it is next handed back, and how often it
	 * was.
	 */
	private record Claim(int bucket, String token, long forgetAt, long nextTry, int tries) {

		Claim triedAt(long now) {
			long wait = Math.min(MAX_RETRY_NANOS, FIRST_RETRY_NANOS << Math.min(this.tries, 10));
			return new Claim(this.bucket, this.token, this.forgetAt, now + wait, this.tries + 1);
		}

	}

}
