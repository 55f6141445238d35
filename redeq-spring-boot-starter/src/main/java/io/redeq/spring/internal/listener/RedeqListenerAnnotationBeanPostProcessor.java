package io.redeq.spring.internal.listener;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanExpressionContext;
import org.springframework.beans.factory.config.BeanExpressionResolver;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.MethodParameter;
import org.springframework.core.Ordered;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.annotation.MergedAnnotations.SearchStrategy;
import org.springframework.util.ReflectionUtils;

import io.redeq.Delivery;
import io.redeq.internal.Validate;
import io.redeq.internal.control.RateLimit;
import io.redeq.spring.RedeqListener;

/**
 * Finds {@link RedeqListener @RedeqListener} methods on every bean (proxies included),
 * resolves each once into a {@link ListenerMethod}, and hands them to the
 * {@link RedeqListenerEndpointRegistry} once all singletons exist. Shaped after
 * spring-amqp's {@code AbstractListenerAnnotationBeanPostProcessor}: one scan per class,
 * cached.
 *
 * <p>
 * A listener method takes one payload parameter and optionally an {@link Delivery}; it
 * may be public, protected or package-private, but not private (on a class-based proxy a
 * private method would run on the proxy, not on the bean) and not static. It names its
 * topics in either {@code topic} or {@code topics}, never both, each entry one topic,
 * none twice; a method of several topics becomes one {@link ListenerMethod} per topic.
 * Anything else fails startup with an {@link InvalidRedeqListenerException} naming the
 * bean and the method.
 *
 * @since 0.1.0
 */
public class RedeqListenerAnnotationBeanPostProcessor
		implements BeanPostProcessor, SmartInitializingSingleton, BeanFactoryAware, Ordered {

	/** The bean name under which the starter registers this post-processor. */
	public static final String BEAN_NAME = "io.redeq.spring.internal.listener.internalRedeqListenerAnnotationProcessor";

	/** Each class scanned once, its annotations merged once. */
	private final Map<Class<?>, List<AnnotatedMethod>> typeCache = new ConcurrentHashMap<>();

	private final List<ListenerMethod> pending = new ArrayList<>();

	private @Nullable ConfigurableListableBeanFactory beanFactory;

	private @Nullable RedeqListenerEndpointRegistry registry;

	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		if (beanFactory instanceof ConfigurableListableBeanFactory configurable) {
			this.beanFactory = configurable;
		}
	}

	@Override
	public int getOrder() {
		return LOWEST_PRECEDENCE;
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) throws BeansException {
		Class<?> targetClass = AopUtils.getTargetClass(bean);
		List<AnnotatedMethod> methods = this.typeCache.computeIfAbsent(targetClass, this::findListenerMethods);
		for (AnnotatedMethod method : methods) {
			for (ListenerMethod listener : resolve(bean, beanName, targetClass, method)) {
				synchronized (this.pending) {
					if (this.registry != null) {
						this.registry.register(listener);
					}
					else {
						this.pending.add(listener);
					}
				}
			}
		}
		return bean;
	}

	private List<AnnotatedMethod> findListenerMethods(Class<?> targetClass) {
		Map<Method, RedeqListener> found = MethodIntrospector.selectMethods(targetClass,
				(MethodIntrospector.MetadataLookup<RedeqListener>) (method) -> {
					MergedAnnotation<RedeqListener> annotation = MergedAnnotations
						.from(method, SearchStrategy.TYPE_HIERARCHY)
						.get(RedeqListener.class);
					return annotation.isPresent() ? annotation.synthesize() : null;
				});
		List<AnnotatedMethod> methods = new ArrayList<>(found.size());
		found.forEach((method, annotation) -> methods.add(new AnnotatedMethod(method, annotation)));
		return List.copyOf(methods);
	}

	/**
	 * Actually registers all listeners, now that every singleton (and so the registry)
	 * exists.
	 */
	@Override
	public void afterSingletonsInstantiated() {
		RedeqListenerEndpointRegistry registry = requiredBeanFactory().getBean(RedeqListenerEndpointRegistry.class);
		synchronized (this.pending) {
			this.pending.forEach(registry::register);
			this.pending.clear();
			this.registry = registry;
		}
		this.typeCache.clear();
	}

	/**
	 * One {@link ListenerMethod} per topic of the method: each topic is subscribed on its
	 * own, with its own {@code redeq.topics.<topic>.*} settings, all calling the method.
	 */
	private List<ListenerMethod> resolve(Object bean, String beanName, Class<?> targetClass,
			AnnotatedMethod annotated) {
		Method method = annotated.method();
		RedeqListener annotation = annotated.annotation();
		String description = ListenerMethod.describe(beanName, method);
		int modifiers = method.getModifiers();
		if (Modifier.isStatic(modifiers)) {
			throw new InvalidRedeqListenerException(description, "is static; make it an instance method");
		}
		if (Modifier.isPrivate(modifiers)) {
			throw new InvalidRedeqListenerException(description,
					"is private; make it public or package-private so that it can be called on the bean's proxy");
		}
		int payloadIndex = -1;
		int deliveryIndex = -1;
		Class<?>[] types = method.getParameterTypes();
		for (int i = 0; i < types.length; i++) {
			if (types[i] == Delivery.class) {
				if (deliveryIndex >= 0) {
					throw new InvalidRedeqListenerException(description, "has two Delivery parameters; declare one");
				}
				deliveryIndex = i;
			}
			else if (payloadIndex >= 0) {
				throw new InvalidRedeqListenerException(description,
						"has two payload parameters (" + types[payloadIndex].getSimpleName() + " and "
								+ types[i].getSimpleName() + "); a listener method takes one payload parameter and "
								+ "optionally an io.redeq.Delivery");
			}
			else {
				payloadIndex = i;
			}
		}
		if (payloadIndex < 0) {
			throw new InvalidRedeqListenerException(description,
					"has no payload parameter; declare one (the type to read the job's JSON into), and optionally "
							+ "an io.redeq.Delivery");
		}
		ResolvableType payload = ResolvableType
			.forMethodParameter(new MethodParameter(method, payloadIndex).withContainingClass(targetClass));
		if (payload.hasUnresolvableGenerics()) {
			throw new InvalidRedeqListenerException(description, "has a payload parameter of type " + payload
					+ " whose generic type cannot be resolved; declare a concrete type such as List<Item>");
		}
		Type payloadType = payload.getType();
		List<String> topics = topics(description, annotation);
		Method invocable;
		try {
			invocable = AopUtils.selectInvocableMethod(method, bean.getClass());
		}
		catch (IllegalStateException ex) {
			throw new InvalidRedeqListenerException(description, "cannot be called on the bean's proxy ("
					+ ex.getMessage() + "); declare it on the proxied interface or use class-based proxies");
		}
		ReflectionUtils.makeAccessible(invocable);
		@Nullable Integer concurrency = positiveInt(description, "concurrency", annotation.concurrency());
		@Nullable Integer maxAttempts = positiveInt(description, "maxAttempts", annotation.maxAttempts());
		@Nullable Duration timeout = duration(description, annotation.timeout());
		@Nullable String rateLimit = rateLimit(description, annotation.rateLimit());
		List<ListenerMethod> listeners = new ArrayList<>(topics.size());
		for (String topic : topics) {
			listeners.add(new ListenerMethod(beanName, bean, invocable, topic, payloadType, payloadIndex, deliveryIndex,
					concurrency, maxAttempts, timeout, rateLimit));
		}
		return listeners;
	}

	/**
	 * The topics of {@code topic} or {@code topics} (exactly one of them set), each
	 * resolved and checked; a topic named twice is refused, as two subscriptions of one
	 * topic in one instance would be.
	 */
	private List<String> topics(String description, RedeqListener annotation) {
		String single = annotation.topic();
		String[] several = annotation.topics();
		if (!single.isEmpty() && several.length > 0) {
			throw new InvalidRedeqListenerException(description, "sets both topic = \"" + single + "\" and topics = "
					+ quoted(several) + "; set one of them: topic for one topic, topics for several");
		}
		if (single.isEmpty() && several.length == 0) {
			throw new InvalidRedeqListenerException(description,
					"names no topic; set topic = \"...\" for one topic or topics = { ... } for several");
		}
		if (several.length == 0) {
			return List.of(topic(description, "topic", single));
		}
		Map<String, String> resolved = new LinkedHashMap<>();
		for (int i = 0; i < several.length; i++) {
			String raw = several[i];
			String topic = topic(description, "topics[" + i + "]", raw);
			String earlier = resolved.putIfAbsent(topic, raw);
			if (earlier != null) {
				throw new InvalidRedeqListenerException(description,
						"names topic '" + topic + "' twice in topics = " + quoted(several)
								+ (earlier.equals(raw) ? "" : " (from \"" + earlier + "\" and \"" + raw + "\")")
								+ "; name each topic once");
			}
		}
		return List.copyOf(resolved.keySet());
	}

	private String topic(String description, String attribute, String raw) {
		String value = resolveValue(raw);
		if (value.isBlank()) {
			throw new InvalidRedeqListenerException(description, "has " + attribute + " = \"" + value + "\""
					+ (raw.equals(value) ? "" : " (from \"" + raw + "\")") + "; a topic must not be empty or blank");
		}
		try {
			return Validate.topic(value);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidRedeqListenerException(description,
					"has an invalid topic" + (attribute.equals("topic") ? "" : " in " + attribute)
							+ (raw.equals(value) ? "" : " (from \"" + raw + "\")") + ": " + ex.getMessage());
		}
	}

	private static String quoted(String[] values) {
		StringBuilder quoted = new StringBuilder("{ ");
		for (int i = 0; i < values.length; i++) {
			quoted.append((i > 0) ? ", " : "").append('"').append(values[i]).append('"');
		}
		return quoted.append(" }").toString();
	}

	private @Nullable String rateLimit(String description, String raw) {
		String value = resolveValue(raw);
		if (value.isEmpty()) {
			return null;
		}
		try {
			RateLimit.parse(value);
			return value;
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidRedeqListenerException(description, "has rateLimit = \"" + value + "\""
					+ (raw.equals(value) ? "" : " (from \"" + raw + "\")") + "; " + ex.getMessage());
		}
	}

	private @Nullable Integer positiveInt(String description, String attribute, String raw) {
		String value = resolveValue(raw);
		if (value.isEmpty()) {
			return null;
		}
		try {
			int parsed = Integer.parseInt(value.trim());
			if (parsed >= 1) {
				return parsed;
			}
		}
		catch (NumberFormatException ex) {
			// reported below
		}
		throw new InvalidRedeqListenerException(description,
				"has " + attribute + " = \"" + value + "\"" + (raw.equals(value) ? "" : " (from \"" + raw + "\")")
						+ "; it must be a whole number of at least 1, or empty for the configured default");
	}

	private @Nullable Duration duration(String description, String raw) {
		String value = resolveValue(raw);
		if (value.isEmpty()) {
			return null;
		}
		try {
			Duration parsed = DurationStyle.detectAndParse(value.trim());
			if (!parsed.isNegative() && !parsed.isZero()) {
				return parsed;
			}
		}
		catch (IllegalArgumentException ex) {
			// reported below
		}
		throw new InvalidRedeqListenerException(description,
				"has timeout = \"" + value + "\"" + (raw.equals(value) ? "" : " (from \"" + raw + "\")")
						+ "; it must be a positive duration such as 30s or 5m, or empty for the configured default");
	}

	/** Resolves {@code ${...}} placeholders, then {@code #{...}} expressions. */
	private String resolveValue(String value) {
		ConfigurableListableBeanFactory factory = requiredBeanFactory();
		String resolved = factory.resolveEmbeddedValue(value);
		if (resolved == null) {
			return "";
		}
		BeanExpressionResolver expressions = factory.getBeanExpressionResolver();
		if (expressions != null && resolved.contains("#{")) {
			Object evaluated = expressions.evaluate(resolved, new BeanExpressionContext(factory, null));
			return (evaluated != null) ? evaluated.toString() : "";
		}
		return resolved;
	}

	private ConfigurableListableBeanFactory requiredBeanFactory() {
		if (this.beanFactory == null) {
			throw new IllegalStateException(
					"RedeqListenerAnnotationBeanPostProcessor needs a ConfigurableListableBeanFactory");
		}
		return this.beanFactory;
	}

	/**
	 * A method found on a class with its {@code @RedeqListener}, merged over the type
	 * hierarchy once (spring-amqp's {@code ListenerMethod}); a bean of the class then
	 * only resolves placeholders.
	 */
	private record AnnotatedMethod(Method method, RedeqListener annotation) {
	}

}
