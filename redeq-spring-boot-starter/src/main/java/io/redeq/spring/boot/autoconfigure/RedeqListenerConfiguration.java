package io.redeq.spring.boot.autoconfigure;

import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.core.io.ResourceLoader;
import org.springframework.util.ClassUtils;

import io.redeq.Redeq;
import io.redeq.spring.internal.forward.ForwardTarget;
import io.redeq.spring.internal.forward.InvalidRedeqForwardException;
import io.redeq.spring.internal.forward.RabbitForwarders;
import io.redeq.spring.internal.listener.RedeqListenerAnnotationBeanPostProcessor;
import io.redeq.spring.internal.listener.RedeqListenerEndpointRegistry;

/**
 * {@link io.redeq.spring.RedeqListener @RedeqListener} support and the forwarding of
 * topics to RabbitMQ ({@code redeq.topics.<topic>.forward.*}), unless
 * {@code redeq.consumer.enabled=false} makes the application producer-only (then
 * annotated methods are neither checked nor run, and nothing is forwarded).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty(name = "redeq.consumer.enabled", matchIfMissing = true)
class RedeqListenerConfiguration {

	private static final String RABBIT_TEMPLATE = "org.springframework.amqp.rabbit.core.RabbitTemplate";

	@Bean(name = RedeqListenerAnnotationBeanPostProcessor.BEAN_NAME)
	@ConditionalOnMissingBean(name = RedeqListenerAnnotationBeanPostProcessor.BEAN_NAME)
	static RedeqListenerAnnotationBeanPostProcessor redeqListenerAnnotationBeanPostProcessor() {
		return new RedeqListenerAnnotationBeanPostProcessor();
	}

	@Bean
	@ConditionalOnMissingBean
	RedeqListenerEndpointRegistry redeqListenerEndpointRegistry(Redeq redeq, RedeqProperties properties,
			Environment environment, ResourceLoader resourceLoader) {
		PropertiesListenerDefaults defaults = defaults(properties, environment);
		Map<String, ForwardTarget> forwarded = forwardTargets(defaults);
		if (!forwarded.isEmpty() && !ClassUtils.isPresent(RABBIT_TEMPLATE, resourceLoader.getClassLoader())) {
			throw new InvalidRedeqForwardException(
					"Topics " + forwarded.keySet() + " are forwarded to RabbitMQ (redeq.topics.<topic>.forward.*), "
							+ "but Spring AMQP is not on the classpath (no " + RABBIT_TEMPLATE + ")",
					"Add org.springframework.boot:spring-boot-starter-amqp to the application's dependencies and "
							+ "configure spring.rabbitmq.*, or remove the topics' forward settings");
		}
		return new RedeqListenerEndpointRegistry(redeq, defaults);
	}

	static PropertiesListenerDefaults defaults(RedeqProperties properties, Environment environment) {
		return new PropertiesListenerDefaults(TopicOverrides.resolve(environment, properties),
				properties.getConsumer().getBackoff(), properties.getConsumer().getNotRetryable());
	}

	/** The topics with forward settings, and where each goes. */
	static Map<String, ForwardTarget> forwardTargets(PropertiesListenerDefaults defaults) {
		Map<String, ForwardTarget> targets = new LinkedHashMap<>();
		defaults.topics().forEach((topic, settings) -> {
			RedeqProperties.TopicForward forward = settings.getForward();
			if (forward.isConfigured()) {
				String exchange = (forward.getExchange() != null) ? forward.getExchange() : "";
				String routingKey = (forward.getRoutingKey() != null) ? forward.getRoutingKey() : "";
				targets.put(topic, new ForwardTarget(exchange, routingKey));
			}
		});
		return targets;
	}

	/**
	 * The consumers of forwarded topics, when Spring AMQP is there; without it, a
	 * forwarded topic fails startup above.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(RabbitTemplate.class)
	static class RabbitForwardConfiguration {

		@Bean
		@ConditionalOnMissingBean
		RabbitForwarders redeqRabbitForwarders(Redeq redeq, RedeqProperties properties, Environment environment,
				ObjectProvider<RabbitTemplate> templates) {
			PropertiesListenerDefaults defaults = defaults(properties, environment);
			Map<String, ForwardTarget> targets = forwardTargets(defaults);
			RabbitTemplate template = templates.getIfUnique();
			if (!targets.isEmpty() && template == null) {
				throw new InvalidRedeqForwardException("Topics " + targets.keySet()
						+ " are forwarded to RabbitMQ (redeq.topics.<topic>.forward.*), but the application has "
						+ ((templates.stream().findAny().isPresent())
								? "several RabbitTemplate beans and none is primary" : "no RabbitTemplate bean"),
						"Let Spring Boot create one (spring-boot-starter-amqp with spring.rabbitmq.* settings, "
								+ "including spring.rabbitmq.publisher-confirm-type=correlated and "
								+ "spring.rabbitmq.publisher-returns=true), mark one @Primary, or remove the "
								+ "topics' forward settings");
			}
			return new RabbitForwarders(redeq, defaults, template, targets);
		}

	}

}
