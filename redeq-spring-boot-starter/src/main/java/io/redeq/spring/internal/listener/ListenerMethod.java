package io.redeq.spring.internal.listener;

import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * A {@link io.redeq.spring.RedeqListener @RedeqListener} method resolved once at startup:
 * the bean to call it on, where its payload and optional {@link io.redeq.Delivery} go,
 * and the attribute values with placeholders resolved ({@code null} = use the configured
 * default). A method that listens to several topics is resolved into one
 * {@code ListenerMethod} per topic, each subscribed on its own.
 *
 * @param beanName the name of the bean declaring the method
 * @param bean the bean (possibly a proxy) the method is invoked on
 * @param method the method to invoke, invocable on {@code bean}
 * @param topic the topic this subscription of the method consumes
 * @param payloadType the payload parameter's full generic type
 * @param payloadIndex position of the payload parameter
 * @param deliveryIndex position of the {@code Delivery} parameter, or {@code -1}
 * @param concurrency handlers at once, or {@code null} for the default
 * @param maxAttempts deliveries before DEAD, or {@code null} for the default
 * @param timeout handler timeout and lease, or {@code null} for the default
 * @param rateLimit job starts per window such as {@code 100/1s}, already checked, or
 * {@code null} for the configured one
 * @since 0.1.0
 */
public record ListenerMethod(String beanName, Object bean, Method method, String topic, Type payloadType,
		int payloadIndex, int deliveryIndex, @Nullable Integer concurrency, @Nullable Integer maxAttempts,
		@Nullable Duration timeout, @Nullable String rateLimit) {

	/**
	 * A listener without a rate limit of its own.
	 * @param beanName the name of the bean declaring the method
	 * @param bean the bean (possibly a proxy) the method is invoked on
	 * @param method the method to invoke, invocable on {@code bean}
	 * @param topic the topic the method consumes
	 * @param payloadType the payload parameter's full generic type
	 * @param payloadIndex position of the payload parameter
	 * @param deliveryIndex position of the {@code Delivery} parameter, or {@code -1}
	 * @param concurrency handlers at once, or {@code null} for the default
	 * @param maxAttempts deliveries before DEAD, or {@code null} for the default
	 * @param timeout handler timeout and lease, or {@code null} for the default
	 */
	public ListenerMethod(String beanName, Object bean, Method method, String topic, Type payloadType, int payloadIndex,
			int deliveryIndex, @Nullable Integer concurrency, @Nullable Integer maxAttempts,
			@Nullable Duration timeout) {
		this(beanName, bean, method, topic, payloadType, payloadIndex, deliveryIndex, concurrency, maxAttempts, timeout,
				null);
	}

	/** How error messages and logs name this listener: bean and method. */
	public String description() {
		return describe(this.beanName, this.method);
	}

	static String describe(String beanName, Method method) {
		StringBuilder parameters = new StringBuilder();
		for (Class<?> type : method.getParameterTypes()) {
			parameters.append((parameters.length() > 0) ? ", " : "").append(type.getSimpleName());
		}
		return "method " + method.getDeclaringClass().getName() + "." + method.getName() + "(" + parameters
				+ ") of bean '" + beanName + "'";
	}

}
