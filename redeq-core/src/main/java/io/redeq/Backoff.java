package io.redeq;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

import io.redeq.internal.Validate;

/**
 * Exponential backoff with jitter between the attempts of a failing job: attempt
 * {@code k} (1-based) that failed waits {@code min(max, initial × multiplier^(k-1))},
 * spread by {@code ± jitter} of itself. Stateless, because the attempt count travels with
 * the job.
 *
 * @param initial the wait after the first failed attempt
 * @param multiplier how much each further wait grows, {@code >= 1}
 * @param max the longest wait
 * @param jitter fraction of the wait added or removed at random, between 0 and 1
 * @since 0.1.0
 */
public record Backoff(Duration initial, double multiplier, Duration max, double jitter) {

	/** 1 s, doubling, at most 10 min, ± 20 %. */
	public static final Backoff DEFAULT = new Backoff(Duration.ofSeconds(1), 2.0, Duration.ofMinutes(10), 0.2);

	public Backoff {
		Validate.positiveOrZero("backoff.initial", initial);
		Validate.positiveOrZero("backoff.max", max);
		if (max.compareTo(Validate.MAX_DELAY) > 0) {
			throw new IllegalArgumentException(
					"backoff.max must be at most " + Validate.MAX_DELAY + " (1000 years), but was " + max);
		}
		if (!(multiplier >= 1.0) || Double.isInfinite(multiplier)) {
			throw new IllegalArgumentException(
					"backoff.multiplier must be a finite number >= 1.0, but was " + multiplier);
		}
		if (!(jitter >= 0.0 && jitter <= 1.0)) {
			throw new IllegalArgumentException("backoff.jitter must be between 0.0 and 1.0, but was " + jitter);
		}
		if (max.compareTo(initial) < 0) {
			throw new IllegalArgumentException(
					"backoff.max (" + max + ") must not be shorter than backoff.initial (" + initial + ")");
		}
	}

	/** The wait after the given failed attempt (1-based), jitter included. */
	public Duration delayAfter(int attempt) {
		double base = this.initial.toMillis() * Math.pow(this.multiplier, Math.max(0, attempt - 1));
		double capped = Math.min(base, this.max.toMillis());
		double spread = capped * this.jitter * (ThreadLocalRandom.current().nextDouble() * 2 - 1);
		long millis = Math.round(Math.min(capped + spread, this.max.toMillis()));
		return Duration.ofMillis(Math.max(0, millis));
	}

}
