package io.redeq.example.sms;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.stereotype.Component;

import io.redeq.Delivery;
import io.redeq.spring.RedeqListener;

/**
 * Hands text messages to an SMS partner that allows 5 per second. The limit is not here
 * but in application.yml ({@code redeq.topics.sms.send.rate-limit: 5/1s}), shared by
 * every instance through Redis: jobs beyond it wait READY, with no attempt used.
 */
@Component
class SmsListener {

	private static final Logger logger = LoggerFactory.getLogger(SmsListener.class);

	@RedeqListener(topic = "sms.send", concurrency = "4")
	void send(Sms sms, Delivery delivery) {
		logger.info("Sent SMS to {}: \"{}\" (job {})", sms.to(), sms.text(), delivery.id());
	}

}
