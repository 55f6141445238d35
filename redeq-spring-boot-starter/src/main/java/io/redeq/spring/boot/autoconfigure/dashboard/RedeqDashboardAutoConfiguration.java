package io.redeq.spring.boot.autoconfigure.dashboard;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.ClassUtils;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.ServerResponse;

import io.redeq.Redeq;
import io.redeq.RedeqAdmin;
import io.redeq.RedeqClient;
import io.redeq.spring.boot.autoconfigure.RedeqAutoConfiguration;
import io.redeq.spring.boot.autoconfigure.RedeqProperties;
import io.redeq.spring.internal.dashboard.DashboardRoutes;
import io.redeq.spring.internal.dashboard.DashboardSettings;
import io.redeq.spring.internal.listener.RedeqListenerEndpointRegistry;

/**
 * Auto-configuration of the web dashboard ({@code redeq.dashboard.enabled=true}): its
 * routes on a Spring MVC (servlet) application, its pages drawn with JMustache
 * ({@code com.samskivert:jmustache}, which startup asks for when it is missing). A
 * WebFlux application gets no dashboard. Actions need a signed-in user with
 * {@code redeq.dashboard.action-role}, whatever signs users in.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = RedeqAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass({ Redeq.class, RouterFunction.class })
@ConditionalOnBean(Redeq.class)
@ConditionalOnBooleanProperty("redeq.dashboard.enabled")
public final class RedeqDashboardAutoConfiguration {

	private static final String MUSTACHE = "com.samskivert.mustache.Mustache";

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = MUSTACHE)
	static class DashboardConfiguration {

		private static final Logger logger = LoggerFactory.getLogger(RedeqDashboardAutoConfiguration.class);

		/**
		 * The bean Spring Security's web configuration registers for its filter chain.
		 */
		private static final String SECURITY_FILTER_CHAIN = "springSecurityFilterChain";

		private static final String SECURITY_CHAIN_TYPE = "org.springframework.security.web.SecurityFilterChain";

		@Bean
		RouterFunction<ServerResponse> redeqDashboardRoutes(Redeq redeq, RedeqProperties properties,
				ObjectProvider<RedeqClient> client, ObjectProvider<RedeqAdmin> admin,
				ObjectProvider<RedeqListenerEndpointRegistry> listeners, ListableBeanFactory beans) {
			RedeqProperties.Dashboard dashboard = properties.getDashboard();
			DashboardSettings settings = DashboardSettings.of(dashboard.getPath(), dashboard.isReadOnly(),
					dashboard.getActionRole());
			if (!settings.readOnly() && !springSecurity(beans)) {
				logger.warn("redeq dashboard: its actions need a signed-in user with the role {} "
						+ "(redeq.dashboard.action-role), and this application runs no Spring Security to sign users "
						+ "in: actions stay off for every request whose HttpServletRequest has no such user. Add "
						+ "Spring Security (spring-boot-starter-security) and grant the role, or set "
						+ "redeq.dashboard.read-only=true.", settings.actionRole());
			}
			return new DashboardRoutes(redeq, client.getIfUnique(redeq::client), admin.getIfUnique(redeq::admin),
					listeners.getIfUnique(), settings)
				.routes();
		}

		/**
		 * Whether Spring Security's web filter chain is configured: only for the warning.
		 */
		private static boolean springSecurity(ListableBeanFactory beans) {
			if (beans.containsBean(SECURITY_FILTER_CHAIN)) {
				return true;
			}
			ClassLoader loader = RedeqDashboardAutoConfiguration.class.getClassLoader();
			return ClassUtils.isPresent(SECURITY_CHAIN_TYPE, loader) && beans
				.getBeanNamesForType(ClassUtils.resolveClassName(SECURITY_CHAIN_TYPE, loader), true, false).length > 0;
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnMissingClass(MUSTACHE)
	static class TemplateEngineMissingConfiguration {

		@Bean
		Object redeqDashboardTemplateEngine() {
			throw new InvalidConfigurationPropertyValueException("redeq.dashboard.enabled", true,
					"The redeq dashboard draws its pages with JMustache, which is not on the classpath. Add the "
							+ "dependency com.samskivert:jmustache (Spring Boot manages its version), or set "
							+ "redeq.dashboard.enabled=false.");
		}

	}

}
