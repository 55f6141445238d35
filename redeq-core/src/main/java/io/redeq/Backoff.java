package io.redeq;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

import io.redeq.internal.InvalidValueException;
import io.redeq.internal.Validate;

/**
 * Exponential backoff with jitter between the attempts of a failing job: attempt
 * {@code k} (1-based) that failed waits {@code min(max, initial × multiplier^(k-1))},
 * spread by {@code ± jitter} of itself. Stateless, because the attempt count travels with
 * the job. The default is {@link RedeqOptions#DEFAULT_BACKOFF}.
 *
 * <p>
 * A refused value fails with an {@link IllegalArgumentException} whose name is
 * {@code backoff.initial}, {@code backoff.multiplier}, {@code backoff.max} or
 * {@code backoff.jitter}.
 *
 * @param initial the wait after the first failed attempt
 * @param multiplier how much each further wait grows, {@code >= 1}
 * @param max the longest wait
 * @param jitter fraction of the wait added or removed at random, between 0 and 1
 * @since 0.1.0
 */
public record Backoff(Duration initial, double multiplier, Duration max, double jitter) {

	/**
	 * Checks the values.
	 * @param initial the wait after the first failed attempt
	 * @param multiplier how much each further wait grows, {@code >= 1}
	 * @param max the longest wait
	 * @param jitter fraction of the wait added or removed at random, between 0 and 1
	 * @throws io.redeq.internal.InvalidValueException naming the value and its limit when
	 * one is out of range
	 */
	public Backoff {
		Validate.positiveOrZero("backoff.initial", initial);
		Validate.positiveOrZero("backoff.max", max);
		Validate.atMost("backoff.max", max, Validate.MAX_DELAY, "1000 years");
		if (!(multiplier >= 1.0) || Double.isInfinite(multiplier)) {
			throw new InvalidValueException("backoff.multiplier", multiplier, "must be a finite number >= 1.0");
		}
		Validate.between("backoff.jitter", jitter, 0.0, 1.0);
		if (max.compareTo(initial) < 0) {
			throw new InvalidValueException("backoff.max", max,
					"must not be shorter than backoff.initial (" + initial + ")");
		}
	}

	/**
	 * The wait after the given failed attempt, jitter included.
	 * @param attempt the attempt that failed, 1 for the first
	 * @return the wait before the next attempt
	 */
	public Duration delayAfter(int attempt) {
		double base = this.initial.toMillis() * Math.pow(this.multiplier, Math.max(0, attempt - 1));
		double capped = Math.min(base, this.max.toMillis());
		double spread = capped * this.jitter * (ThreadLocalRandom.current().nextDouble() * 2 - 1);
		long millis = Math.round(Math.min(capped + spread, this.max.toMillis()));
		return Duration.ofMillis(Math.max(0, millis));
	}

}
