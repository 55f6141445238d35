package io.redeq.spring.boot.autoconfigure;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

import io.redeq.Redeq;
import io.redeq.spring.listener.RedeqListenerAnnotationBeanPostProcessor;
import io.redeq.spring.listener.RedeqListenerEndpointRegistry;

/**
 * {@link io.redeq.spring.RedeqListener @RedeqListener} support, unless
 * {@code redeq.consumer.enabled=false} makes the application producer-only (then
 * annotated methods are neither checked nor run).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty(name = "redeq.consumer.enabled", matchIfMissing = true)
class RedeqListenerConfiguration {

	@Bean(name = RedeqListenerAnnotationBeanPostProcessor.BEAN_NAME)
	@ConditionalOnMissingBean(name = RedeqListenerAnnotationBeanPostProcessor.BEAN_NAME)
	static RedeqListenerAnnotationBeanPostProcessor redeqListenerAnnotationBeanPostProcessor() {
		return new RedeqListenerAnnotationBeanPostProcessor();
	}

	@Bean
	@ConditionalOnMissingBean
	RedeqListenerEndpointRegistry redeqListenerEndpointRegistry(Redeq redeq, RedeqProperties properties,
			Environment environment) {
		return new RedeqListenerEndpointRegistry(redeq,
				new PropertiesListenerDefaults(TopicOverrides.resolve(environment, properties),
						properties.getConsumer().getBackoff(), properties.getConsumer().getNotRetryable()));
	}

}
