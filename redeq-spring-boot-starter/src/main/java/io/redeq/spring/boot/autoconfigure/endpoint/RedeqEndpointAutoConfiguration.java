package io.redeq.spring.boot.autoconfigure.endpoint;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import io.redeq.Redeq;
import io.redeq.RedeqAdmin;
import io.redeq.spring.boot.autoconfigure.RedeqAutoConfiguration;
import io.redeq.spring.internal.endpoint.RedeqEndpoint;
import io.redeq.spring.internal.listener.RedeqListenerEndpointRegistry;

/**
 * Auto-configuration of the {@link RedeqEndpoint}, available only as far as Actuator's
 * {@code management.endpoints.*} settings expose it (like Boot's
 * {@code QuartzEndpointAutoConfiguration}).
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = RedeqAutoConfiguration.class)
@ConditionalOnClass({ Redeq.class, Endpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnBean(Redeq.class)
@ConditionalOnAvailableEndpoint(RedeqEndpoint.class)
public final class RedeqEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RedeqEndpoint redeqEndpoint(Redeq redeq, ObjectProvider<RedeqAdmin> admin,
			ObjectProvider<RedeqListenerEndpointRegistry> listeners) {
		return new RedeqEndpoint(redeq, admin.getIfUnique(redeq::admin), listeners.getIfUnique());
	}

}
