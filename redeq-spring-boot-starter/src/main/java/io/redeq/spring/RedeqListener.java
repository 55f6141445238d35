package io.redeq.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A bean method that runs the jobs of a topic, or of several, when they are due. The
 * method takes exactly one payload parameter, read with the application's Jackson mapper
 * into its declared (possibly generic) type, and optionally an {@link io.redeq.Delivery}:
 *
 * <pre class="code">
 * &#64;RedeqListener(topic = "order.timeout", concurrency = "4", maxAttempts = "5", timeout = "30s")
 * void onTimeout(OrderTimeout payload, Delivery delivery) { ... }
 * </pre>
 *
 * One method may run several topics, each subscribed on its own with its own
 * {@code redeq.topics.<topic>.*} settings; {@link io.redeq.Delivery#topic()} says which
 * topic a job came from:
 *
 * <pre class="code">
 * &#64;RedeqListener(topics = { "mail.welcome", "mail.reminder" })
 * void send(Mail mail, Delivery delivery) { ... }
 * </pre>
 *
 * Returning normally completes the job; throwing schedules a retry with backoff, and
 * after {@code maxAttempts} the job is DEAD. Every attribute is a string so that
 * {@code ${...}} placeholders and {@code #{...}} expressions work; an empty attribute
 * takes the value of {@code redeq.topics.<topic>.*}, else of {@code redeq.consumer.*}.
 *
 * @since 0.1.0
 */
@Target({ ElementType.METHOD, ElementType.ANNOTATION_TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface RedeqListener {

	/**
	 * Topic whose jobs this method runs; one listener per topic in an application. Set
	 * either this or {@link #topics()}.
	 * @return the topic, or empty when {@link #topics()} names them
	 */
	String topic() default "";

	/**
	 * Topics whose jobs this method runs, each subscribed on its own with its own
	 * {@code redeq.topics.<topic>.*} settings (the other attributes apply to every one of
	 * them); one listener per topic in an application. Set either this or
	 * {@link #topic()}; each entry is one topic, none empty, none twice.
	 * @return the topics, or empty when {@link #topic()} names it
	 */
	String[] topics() default {};

	/**
	 * Handlers of the topic (of each topic) that may run at once in this instance, at
	 * least 1.
	 * @return the number of handlers, or empty for the default
	 */
	String concurrency() default "";

	/**
	 * Deliveries before a failing job is DEAD, at least 1.
	 * @return the number of deliveries, or empty for the default
	 */
	String maxAttempts() default "";

	/**
	 * Handler timeout and lease of an in-flight job, such as {@code 30s} or {@code 5m}
	 * (or an ISO-8601 duration).
	 * @return the timeout, or empty for the default
	 */
	String timeout() default "";

	/**
	 * Most job starts of the topic (of each topic) per window across all instances, such
	 * as {@code 100/1s} (units ms, s, m, h, d); jobs beyond it wait READY without using
	 * an attempt.
	 * @return the rate limit, or empty for the configured one (none by default)
	 */
	String rateLimit() default "";

}
