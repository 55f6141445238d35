package io.redeq.consumer;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.redeq.RedeqException;
import io.redeq.RedeqUnavailableException;
import io.redeq.redis.RedisJobStore;

/**
 * Claims whose reply never arrived. A claim that timed out or lost its connection may
 * still have run in Redis (a command already on the wire is not taken back), leaving its
 * jobs IN_FLIGHT for a consumer that never got them. Each such claim's token is kept, and
 * before the next claim the fetcher hands back whatever is still held under it, with the
 * attempt given back: those jobs were never started, so they must neither wait for their
 * lease nor lose an attempt. The fetcher thread hands back; the migrator's thread may add
 * a hand-off whose reply it lost.
 */
final class LostClaims {

	private static final Logger logger = LoggerFactory.getLogger(LostClaims.class);

	private static final int MAX_REMEMBERED = 1000;

	private final RedisJobStore store;

	private final String topic;

	private final List<Claim> lost = new CopyOnWriteArrayList<>();

	LostClaims(RedisJobStore store, String topic) {
		this.store = store;
		this.topic = topic;
	}

	/**
	 * Remembers a claim whose outcome is unknown; a refusal Redis answered (a script
	 * error) wrote nothing and needs nothing.
	 */
	void failed(int bucket, String token, RedeqException failure) {
		if (failure instanceof RedeqUnavailableException && this.lost.size() < MAX_REMEMBERED) {
			this.lost.add(new Claim(bucket, token));
		}
	}

	/**
	 * Remembers a claim made for this consumer elsewhere (a migrate's hand-off, on the
	 * migrator's thread) whose reply never arrived or could not be used. Whatever the
	 * failure, the token is handed back: with nothing held under it, that costs one
	 * script and changes nothing.
	 */
	void unanswered(int bucket, String token) {
		if (this.lost.size() < MAX_REMEMBERED) {
			this.lost.add(new Claim(bucket, token));
		}
	}

	/**
	 * Hands back the jobs of every remembered claim; returns the buckets that got jobs
	 * back. A claim whose hand-back fails stays remembered for the next round.
	 */
	List<Integer> handBack() {
		List<Integer> buckets = new ArrayList<>();
		for (Claim claim : List.copyOf(this.lost)) {
			long released = this.store.releaseClaim(claim.bucket(), this.topic, claim.token());
			this.lost.remove(claim);
			if (released > 0) {
				logger.info("Handed back {} jobs of topic '{}' whose claim's reply was lost; they run again at once",
						released, this.topic);
				buckets.add(claim.bucket());
			}
		}
		return buckets;
	}

	boolean isEmpty() {
		return this.lost.isEmpty();
	}

	private record Claim(int bucket, String token) {
	}

}
