package io.redeq.example.reminder;

import java.util.concurrent.ThreadLocalRandom;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

import io.redeq.Delivery;
import io.redeq.spring.RedeqListener;

/**
 * Sends reminders through a mail server that fails now and then
 * ({@code example.reminder.failure-rate}). A failure is thrown, so redeq retries with
 * backoff; after the last attempt the reminder is a dead letter, visible at
 * {@code GET /reminders/dead}.
 * <p>
 * One method serves two topics: regular reminders and urgent ones, which have their own
 * {@code redeq.topics.reminder.urgent.*} settings (more handlers, a shorter backoff) in
 * {@code application.yml}; each topic is its own subscription, and
 * {@link Delivery#topic()} says which one a reminder came from.
 */
@Component
class ReminderListener {

	static final String REGULAR = "reminder";

	static final String URGENT = "reminder.urgent";

	private static final Logger logger = LoggerFactory.getLogger(ReminderListener.class);

	private final double failureRate;

	private final int maxAttempts;

	ReminderListener(@Value("${example.reminder.failure-rate:0.5}") double failureRate,
			@Value("${example.reminder.max-attempts:3}") int maxAttempts) {
		this.failureRate = failureRate;
		this.maxAttempts = maxAttempts;
	}

	@RedeqListener(topics = { REGULAR, URGENT }, maxAttempts = "${example.reminder.max-attempts:3}")
	void send(Reminder reminder, Delivery delivery) {
		if (ThreadLocalRandom.current().nextDouble() < this.failureRate) {
			logger.warn("Could not send the reminder to {} (attempt {} of {}): the mail server did not answer{}",
					reminder.to(), delivery.attempt(), this.maxAttempts,
					(delivery.attempt() < this.maxAttempts) ? "; redeq will try again" : "");
			throw new IllegalStateException("mail server did not answer");
		}
		logger.info("Reminded {}: \"{}\" (attempt {}{})", reminder.to(), reminder.text(), delivery.attempt(),
				URGENT.equals(delivery.topic()) ? ", urgent" : "");
	}

}
