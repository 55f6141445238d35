package io.redeq.spring.internal.forward;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageDeliveryMode;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.core.ReturnedMessage;
import org.springframework.amqp.rabbit.connection.CorrelationData;
import org.springframework.amqp.rabbit.core.RabbitTemplate;

import io.redeq.Delivery;
import io.redeq.JobHandler;

/**
 * Runs a job of a forwarded topic by publishing it: the payload's JSON as the body, the
 * job's identity in headers, with a correlated publisher confirm. It returns, and so
 * completes the job, only once the broker acknowledged the message and did not return it;
 * anything else throws, and the job is retried like a failed listener's.
 */
final class RabbitForwardingHandler implements JobHandler<RawJson> {

	/** Header holding the job's topic. */
	static final String TOPIC_HEADER = "redeq-topic";

	/** Header holding the job's id. */
	static final String ID_HEADER = "redeq-id";

	/**
	 * Header holding the job's due time, ISO-8601 in UTC ({@code Instant.toString()}).
	 */
	static final String DUE_AT_HEADER = "redeq-due-at";

	/** Header holding the attempt number, 1 for the first delivery. */
	static final String ATTEMPT_HEADER = "redeq-attempt";

	private final RabbitTemplate template;

	private final ForwardTarget target;

	private final Duration confirmTimeout;

	RabbitForwardingHandler(RabbitTemplate template, ForwardTarget target, Duration confirmTimeout) {
		this.template = template;
		this.target = target;
		this.confirmTimeout = confirmTimeout;
	}

	@Override
	public void handle(RawJson payload, Delivery delivery) throws InterruptedException {
		Message message = message(payload, delivery);
		// Unique per publish: a timed-out attempt's confirm may still arrive while the
		// next attempt waits for its own.
		CorrelationData correlation = new CorrelationData(
				delivery.topic() + "/" + delivery.id() + "/" + delivery.attempt() + "/" + UUID.randomUUID());
		this.template.send(this.target.exchange(), this.target.routingKey(), message, correlation);
		CorrelationData.Confirm confirm;
		try {
			confirm = correlation.getFuture().get(this.confirmTimeout.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (TimeoutException ex) {
			throw new ForwardFailedException("RabbitMQ did not confirm job '" + delivery.id() + "' of topic '"
					+ delivery.topic() + "' (" + this.target + ") within " + this.confirmTimeout
					+ "; it is published again on the next attempt");
		}
		catch (ExecutionException ex) {
			throw new ForwardFailedException("Publisher confirm of job '" + delivery.id() + "' of topic '"
					+ delivery.topic() + "' failed: " + ex.getCause(), ex.getCause());
		}
		if (!confirm.ack()) {
			throw new ForwardFailedException("RabbitMQ did not accept job '" + delivery.id() + "' of topic '"
					+ delivery.topic() + "' (" + this.target + "): nack, " + confirm.reason());
		}
		ReturnedMessage returned = correlation.getReturned();
		if (returned != null) {
			throw new ForwardFailedException("RabbitMQ returned job '" + delivery.id() + "' of topic '"
					+ delivery.topic() + "' as unroutable: " + returned.getReplyCode() + " " + returned.getReplyText()
					+ ", no queue is bound to " + this.target);
		}
	}

	private static Message message(RawJson payload, Delivery delivery) {
		MessageProperties properties = new MessageProperties();
		properties.setContentType(MessageProperties.CONTENT_TYPE_JSON);
		properties.setContentEncoding(StandardCharsets.UTF_8.name());
		properties.setDeliveryMode(MessageDeliveryMode.PERSISTENT);
		properties.setMessageId(delivery.id());
		properties.setHeader(TOPIC_HEADER, delivery.topic());
		properties.setHeader(ID_HEADER, delivery.id());
		properties.setHeader(DUE_AT_HEADER, delivery.dueAt().toString());
		properties.setHeader(ATTEMPT_HEADER, delivery.attempt());
		return new Message(payload.json().getBytes(StandardCharsets.UTF_8), properties);
	}

	@Override
	public String toString() {
		return "forward to RabbitMQ " + this.target;
	}

}
