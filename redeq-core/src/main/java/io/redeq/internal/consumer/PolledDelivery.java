package io.redeq.internal.consumer;

import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Objects;
import java.util.function.BooleanSupplier;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.redeq.Delivery;
import io.redeq.LeaseExpiredException;
import io.redeq.PolledJob;
import io.redeq.RedeqUnavailableException;
import io.redeq.internal.redis.ClaimedJob;

/**
 * A job {@link TopicPoller} claimed for a caller: settling it runs the scripts a
 * listener's outcome runs, fenced by the claim's token, once.
 */
final class PolledDelivery implements PolledJob {

	private static final Logger logger = LoggerFactory.getLogger(PolledDelivery.class);

	private final ClaimedJob job;

	private final Delivery delivery;

	private final Settlement poller;

	private final long claimedNanos = System.nanoTime();

	/** {@code null} while open, else how it was settled. */
	private volatile @Nullable Settled settled;

	/**
	 * An earlier ack or fail got no answer: it may have been applied, so a claim found
	 * lost afterwards most likely means that it was.
	 */
	private boolean mayHaveLanded;

	PolledDelivery(ClaimedJob job, Delivery delivery, Settlement poller) {
		this.job = job;
		this.delivery = delivery;
		this.poller = poller;
	}

	@Override
	public String id() {
		return this.job.id();
	}

	@Override
	public String topic() {
		return this.job.topic();
	}

	@Override
	public int attempt() {
		return this.job.attempt();
	}

	@Override
	public Instant dueAt() {
		return this.delivery.dueAt();
	}

	@Override
	public Instant createdAt() {
		return this.delivery.createdAt();
	}

	@Override
	@SuppressWarnings("unchecked")
	public <T> @Nullable T payload(Class<T> type) {
		Objects.requireNonNull(type, "type must not be null");
		try {
			return (T) this.poller.read(this.job, type);
		}
		catch (RuntimeException ex) {
			throw new IllegalArgumentException(
					"The payload of job " + JobOutcomes.describe(this.job) + " cannot be read as " + type.getName()
							+ ": " + ex.getMessage() + "; fail it with a NotRetryableException to make it DEAD at once",
					ex);
		}
	}

	@Override
	public synchronized void ack() {
		checkOpen("ack");
		boolean completed = settle(() -> this.poller.complete(this.job));
		if (!completed && !this.mayHaveLanded) {
			this.settled = Settled.LEASE_EXPIRED;
			throw new LeaseExpiredException(this.job.topic(), this.job.id(), this.job.attempt(), "ack");
		}
		this.settled = Settled.ACKNOWLEDGED;
		if (!completed) {
			logger.debug("Job {} was gone when its ack was sent again: the ack whose reply was lost completed it",
					JobOutcomes.describe(this.job));
		}
		this.poller.succeeded(this.job, this.delivery, took());
	}

	@Override
	public synchronized void fail(Throwable error) {
		Objects.requireNonNull(error, "error must not be null: pass the exception the attempt failed with");
		checkOpen("fail");
		boolean stored = settle(() -> this.poller.fail(this.job, this.delivery, error, took()));
		if (!stored && !this.mayHaveLanded) {
			this.settled = Settled.LEASE_EXPIRED;
			throw new LeaseExpiredException(this.job.topic(), this.job.id(), this.job.attempt(), "fail");
		}
		this.settled = Settled.FAILED;
	}

	private void checkOpen(String operation) {
		Settled how = this.settled;
		if (how == Settled.LEASE_EXPIRED) {
			throw new LeaseExpiredException(this.job.topic(), this.job.id(), this.job.attempt(), operation);
		}
		if (how != null) {
			throw new IllegalStateException("Cannot " + operation + " job " + JobOutcomes.describe(this.job)
					+ " (attempt " + this.job.attempt() + "): it was already " + how.name().toLowerCase(Locale.ROOT));
		}
	}

	private boolean settle(BooleanSupplier call) {
		try {
			return call.getAsBoolean();
		}
		catch (RedeqUnavailableException ex) {
			this.mayHaveLanded = true;
			throw ex;
		}
	}

	private Duration took() {
		return Duration.ofNanos(System.nanoTime() - this.claimedNanos);
	}

	@Override
	public String toString() {
		return "PolledJob[topic=" + this.job.topic() + ", id=" + this.job.id() + ", attempt=" + this.job.attempt()
				+ "]";
	}

	/**
	 * What settling a polled job runs: {@link TopicPoller}'s scripts and outcomes, or a
	 * test's.
	 */
	interface Settlement {

		/** The payload read into {@code type}; throws if it cannot be. */
		@Nullable Object read(ClaimedJob job, Class<?> type);

		/** Whether Redis completed the job under its claim. */
		boolean complete(ClaimedJob job);

		/** Tells metrics and the listeners that the job completed. */
		void succeeded(ClaimedJob job, Delivery delivery, Duration took);

		/** Retries or buries the job; false if the claim was lost. */
		boolean fail(ClaimedJob job, Delivery delivery, Throwable error, Duration took);

	}

	private enum Settled {

		ACKNOWLEDGED, FAILED,

		/** An ack or fail found the claim lost: its lease had expired. */
		LEASE_EXPIRED

	}

}
