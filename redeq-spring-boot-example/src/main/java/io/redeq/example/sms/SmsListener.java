package io.redeq.example.sms;

import java.time.Duration;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.stereotype.Component;

import io.redeq.Delivery;
import io.redeq.NotRetryableException;
import io.redeq.RetryAfterException;
import io.redeq.spring.RedeqListener;

/**
 * Hands text messages to an SMS partner that allows 5 per second. The limit is not here
 * but in application.yml ({@code redeq.topics.sms.send.rate-limit: 5/1s}), shared by
 * every instance through Redis: jobs beyond it wait READY, with no attempt used.
 *
 * <p>
 * The handler also decides about its retries: a message to something that is no phone
 * number can never be sent ({@link NotRetryableException}: DEAD at once), and a partner
 * that answers "busy, try again in a minute" gets its minute
 * ({@link RetryAfterException}) instead of the topic's backoff. An exception the
 * application does not own can be named in {@code redeq.topics.sms.send.not-retryable}
 * instead.
 */
@Component
class SmsListener {

	private static final Logger logger = LoggerFactory.getLogger(SmsListener.class);

	@RedeqListener(topic = "sms.send", concurrency = "4")
	void send(Sms sms, Delivery delivery) {
		if (!sms.to().matches("\\+[0-9]{6,15}")) {
			throw new NotRetryableException("not a phone number: '" + sms.to() + "'");
		}
		if (sms.text().isBlank()) {
			// As a partner's "busy" answer would be handled: try again in a minute.
			throw new RetryAfterException(Duration.ofMinutes(1), "empty message, partner refused it", null);
		}
		logger.info("Sent SMS to {}: \"{}\" (job {})", sms.to(), sms.text(), delivery.id());
	}

}
