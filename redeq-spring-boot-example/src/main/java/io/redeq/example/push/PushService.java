package io.redeq.example.push;

import java.nio.charset.StandardCharsets;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.amqp.core.Binding;
import org.springframework.amqp.core.BindingBuilder;
import org.springframework.amqp.core.Declarables;
import org.springframework.amqp.core.DirectExchange;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Profile;

/**
 * The RabbitMQ side of the example: exchange {@code push}, queue {@code push.reminders}
 * bound with routing key {@code remind}, and a listener standing in for the push service
 * that sends the notifications. redeq's job ends once RabbitMQ confirmed the message;
 * from there on the message is RabbitMQ's (durable queue, persistent message).
 */
@Configuration(proxyBeanMethods = false)
@Profile("rabbit")
class PushService {

	static final String QUEUE = "push.reminders";

	private static final Logger logger = LoggerFactory.getLogger(PushService.class);

	@Bean
	Declarables pushTopology() {
		DirectExchange exchange = new DirectExchange("push");
		Queue queue = new Queue(QUEUE);
		Binding binding = BindingBuilder.bind(queue).to(exchange).with("remind");
		return new Declarables(exchange, queue, binding);
	}

	@RabbitListener(queues = QUEUE)
	void push(Message message) {
		MessageProperties properties = message.getMessageProperties();
		String body = new String(message.getBody(), StandardCharsets.UTF_8);
		logger.info("Push notification {} (job {}, due {}, redeq attempt {})", body, properties.getHeader("redeq-id"),
				properties.getHeader("redeq-due-at"), properties.getHeader("redeq-attempt"));
	}

}
