package io.redeq.spring.internal.listener;

import java.lang.reflect.Type;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.core.ResolvableType;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.core.io.support.SpringFactoriesLoader.FailureHandler;

import io.redeq.Delivery;
import io.redeq.JobHandler;
import io.redeq.Redeq;
import io.redeq.Subscription;
import io.redeq.SubscriptionOptions;
import io.redeq.spring.RedeqListener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.mock;

/**
 * Tests for {@link RedeqListenerAnnotationBeanPostProcessor}: how listener methods are
 * found and resolved, and every declaration it refuses, without Redis (the engine is a
 * mock; delivery is tested in {@link RedeqListenerIntegrationTests}).
 */
class RedeqListenerAnnotationBeanPostProcessorTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withBean(RedeqListenerAnnotationBeanPostProcessor.BEAN_NAME, RedeqListenerAnnotationBeanPostProcessor.class)
		.withBean(RedeqListenerEndpointRegistry.class,
				() -> new RedeqListenerEndpointRegistry(engine(), ListenerDefaults.ENGINE));

	@SuppressWarnings("unchecked")
	private static Redeq engine() {
		Redeq redeq = mock(Redeq.class);
		given(redeq.subscribe(anyString(), any(Type.class), any(JobHandler.class), any(SubscriptionOptions.class)))
			.willAnswer((invocation) -> mock(Subscription.class));
		return redeq;
	}

	@Test
	void resolvesPayloadTypeDeliveryPositionAndPlaceholders() {
		this.runner.withBean("listeners", Listeners.class)
			.withPropertyValues("app.topic=resolved", "app.concurrency=3")
			.run((context) -> {
				Map<String, ListenerMethod> listeners = listeners(context);
				assertThat(listeners).containsOnlyKeys("items", "resolved");
				ListenerMethod items = listeners.get("items");
				assertThat(ResolvableType.forType(items.payloadType()).toString())
					.isEqualTo("java.util.List<" + Item.class.getName() + ">");
				assertThat(items.payloadIndex()).isZero();
				assertThat(items.deliveryIndex()).isOne();
				assertThat(items.concurrency()).isNull();
				assertThat(items.maxAttempts()).isNull();
				assertThat(items.timeout()).isNull();
				assertThat(items.rateLimit()).isNull();
				ListenerMethod text = listeners.get("resolved");
				assertThat(text.payloadType()).isEqualTo(String.class);
				assertThat(text.payloadIndex()).isOne();
				assertThat(text.deliveryIndex()).isZero();
				assertThat(text.concurrency()).isEqualTo(3);
				assertThat(text.maxAttempts()).isEqualTo(2);
				assertThat(text.timeout()).isEqualTo(Duration.ofSeconds(45));
				assertThat(text.rateLimit()).isEqualTo("5/1s");
				assertThat(text.description())
					.isEqualTo("method " + Listeners.class.getName() + ".onText(Delivery, String) of bean 'listeners'");
			});
	}

	@Test
	void findsAnAnnotationDeclaredOnAnInterface() {
		this.runner.withBean(Implementation.class)
			.run((context) -> assertThat(listeners(context)).containsOnlyKeys("inherited"));
	}

	@Test
	void twoPayloadParametersFail() {
		assertRefused(TwoParameters.class, "@RedeqListener method " + TwoParameters.class.getName()
				+ ".handle(String, Integer) of bean 'twoParameters' has two payload parameters (String and Integer)");
	}

	@Test
	void twoDeliveryParametersFail() {
		assertRefused(TwoDeliveries.class, "of bean 'twoDeliveries' has two Delivery parameters; declare one");
	}

	@Test
	void noPayloadParameterFails() {
		assertRefused(NoPayload.class, "@RedeqListener method " + NoPayload.class.getName()
				+ ".handle(Delivery) of bean 'noPayload' has no payload parameter");
	}

	@Test
	void privateMethodFails() {
		assertRefused(PrivateMethod.class, "of bean 'privateMethod' is private");
	}

	@Test
	void staticMethodFails() {
		assertRefused(StaticMethod.class, "of bean 'staticMethod' is static; make it an instance method");
	}

	@Test
	void unresolvableGenericPayloadFails() {
		assertRefused(Generic.class, "whose generic type cannot be resolved");
	}

	@Test
	void concurrencyThatIsNoPositiveNumberFailsShowingThePlaceholder() {
		assertRefused(BadConcurrency.class,
				"of bean 'badConcurrency' has concurrency = \"zero\" (from \"${missing.concurrency:zero}\"); "
						+ "it must be a whole number of at least 1");
	}

	@Test
	void timeoutThatIsNoPositiveDurationFails() {
		assertRefused(BadTimeout.class, "of bean 'badTimeout' has timeout = \"-1s\"; it must be a positive duration");
	}

	@Test
	void rateLimitThatIsMalformedFailsNamingTheValue() {
		assertRefused(BadRateLimit.class,
				"of bean 'badRateLimit' has rateLimit = \"100 per second\"; rate limit must be permits per window, "
						+ "such as 100/1s");
	}

	@Test
	void malformedTopicFails() {
		assertRefused(BadTopic.class, "of bean 'badTopic' has an invalid topic: topic 'bad topic' is malformed");
	}

	@Test
	void twoListenersForOneTopicFail() {
		this.runner.withBean("first", FirstOfTopic.class).withBean("second", SecondOfTopic.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(NestedExceptionUtils.getMostSpecificCause(context.getStartupFailure()))
				.isInstanceOf(InvalidRedeqListenerException.class)
				.hasMessageContaining("of bean 'second' listens to topic 'shared', which method "
						+ FirstOfTopic.class.getName() + ".handle(String) of bean 'first' already listens to");
		});
	}

	@Test
	void oneMethodOnSeveralTopicsIsOneListenerPerTopicWithPlaceholdersResolved() {
		this.runner.withBean("mail", SeveralTopics.class)
			.withPropertyValues("app.mail.second=mail.reminder", "app.concurrency=2")
			.run((context) -> {
				Map<String, ListenerMethod> listeners = listeners(context);
				assertThat(listeners).containsOnlyKeys("mail.welcome", "mail.reminder");
				ListenerMethod welcome = listeners.get("mail.welcome");
				ListenerMethod reminder = listeners.get("mail.reminder");
				assertThat(welcome.topic()).isEqualTo("mail.welcome");
				assertThat(reminder.topic()).isEqualTo("mail.reminder");
				assertThat(reminder.method()).isEqualTo(welcome.method());
				assertThat(reminder.bean()).isSameAs(welcome.bean());
				assertThat(reminder.description()).isEqualTo(welcome.description())
					.isEqualTo("method " + SeveralTopics.class.getName() + ".send(String, Delivery) of bean 'mail'");
				assertThat(List.of(welcome, reminder)).allSatisfy((listener) -> {
					assertThat(listener.payloadType()).isEqualTo(String.class);
					assertThat(listener.deliveryIndex()).isOne();
					assertThat(listener.concurrency()).isEqualTo(2);
					assertThat(listener.maxAttempts()).isNull();
				});
			});
	}

	@Test
	void topicAndTopicsTogetherFail() {
		assertRefused(TopicAndTopics.class,
				"@RedeqListener method " + TopicAndTopics.class.getName()
						+ ".handle(String) of bean 'topicAndTopics' sets both topic = \"mail.welcome\" and topics = "
						+ "{ \"mail.reminder\" }; set one of them");
	}

	@Test
	void neitherTopicNorTopicsFails() {
		assertRefused(NoTopic.class, "@RedeqListener method " + NoTopic.class.getName()
				+ ".handle(String) of bean 'noTopic' names no topic; set topic = \"...\" for one topic or topics");
	}

	@Test
	void blankEntryInTopicsFails() {
		assertRefused(BlankTopicEntry.class,
				"of bean 'blankTopicEntry' has topics[1] = \" \"; a topic must not be empty or blank");
	}

	@Test
	void entryInTopicsResolvingToNothingFailsShowingThePlaceholder() {
		assertRefused(EmptyTopicEntry.class,
				"of bean 'emptyTopicEntry' has topics[0] = \"\" (from \"${missing.topic:}\"); "
						+ "a topic must not be empty or blank");
	}

	@Test
	void malformedEntryInTopicsFails() {
		assertRefused(MalformedTopicEntry.class, "of bean 'malformedTopicEntry' has an invalid topic in topics[1]: "
				+ "topic 'mail reminder' is malformed");
	}

	@Test
	void topicNamedTwiceInTopicsFails() {
		assertRefused(DuplicateTopicEntry.class, "of bean 'duplicateTopicEntry' names topic 'mail.welcome' twice in "
				+ "topics = { \"mail.welcome\", \"mail.welcome\" }; name each topic once");
	}

	@Test
	void topicsResolvingToTheSameTopicFailShowingBothEntries() {
		this.runner.withBean("placeholderDuplicate", PlaceholderDuplicate.class)
			.withPropertyValues("app.mail.second=mail.welcome")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(NestedExceptionUtils.getMostSpecificCause(context.getStartupFailure()))
					.isInstanceOf(InvalidRedeqListenerException.class)
					.hasMessageContaining("of bean 'placeholderDuplicate' names topic 'mail.welcome' twice in topics = "
							+ "{ \"mail.welcome\", \"${app.mail.second}\" } (from \"mail.welcome\" and "
							+ "\"${app.mail.second}\"); name each topic once");
			});
	}

	@Test
	void aTopicOfSeveralThatAnotherListenerHasFails() {
		this.runner.withBean("first", FirstOfTopic.class).withBean("mail", SharedAmongTopics.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(NestedExceptionUtils.getMostSpecificCause(context.getStartupFailure()))
				.isInstanceOf(InvalidRedeqListenerException.class)
				.hasMessageContaining("of bean 'mail' listens to topic 'shared', which method "
						+ FirstOfTopic.class.getName() + ".handle(String) of bean 'first' already listens to");
		});
	}

	private static Map<String, ListenerMethod> listeners(AssertableApplicationContext context) {
		assertThat(context).hasNotFailed();
		return context.getBean(RedeqListenerEndpointRegistry.class).listeners();
	}

	/**
	 * Startup fails with an {@link InvalidRedeqListenerException} naming bean and method,
	 * and redeq's failure analyzer (found through spring.factories) explains it.
	 */
	private void assertRefused(Class<?> beanClass, String message) {
		String beanName = Character.toLowerCase(beanClass.getSimpleName().charAt(0))
				+ beanClass.getSimpleName().substring(1);
		this.runner.withBean(beanName, beanClass).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(NestedExceptionUtils.getMostSpecificCause(context.getStartupFailure()))
				.isInstanceOf(InvalidRedeqListenerException.class)
				.hasMessageContaining(message);
			FailureAnalysis analysis = analyze(context.getStartupFailure());
			assertThat(analysis.getDescription()).contains(message);
			assertThat(analysis.getAction()).startsWith("Fix method ");
		});
	}

	private static FailureAnalysis analyze(Throwable failure) {
		List<FailureAnalyzer> analyzers = SpringFactoriesLoader
			.forDefaultResourceLocation(RedeqListenerAnnotationBeanPostProcessorTests.class.getClassLoader())
			.load(FailureAnalyzer.class, null, FailureHandler.handleMessage((message, ex) -> {
				// Analyzers that need a bean factory or environment are not ours;
				// skip them.
			}));
		for (FailureAnalyzer analyzer : analyzers) {
			if (analyzer.getClass().getName().startsWith("io.redeq.")) {
				FailureAnalysis analysis = analyzer.analyze(failure);
				if (analysis != null) {
					return analysis;
				}
			}
		}
		throw new AssertionError("No redeq failure analyzer for " + failure);
	}

	record Item(String sku) {
	}

	static class Listeners {

		@RedeqListener(topic = "items")
		void onItems(List<Item> items, Delivery delivery) {
		}

		@RedeqListener(topic = "${app.topic}", concurrency = "${app.concurrency}", maxAttempts = "#{1 + 1}",
				timeout = "${app.timeout:45s}", rateLimit = "${app.rate:5/1s}")
		void onText(Delivery delivery, String text) {
		}

	}

	interface Contract {

		@RedeqListener(topic = "inherited")
		void handle(String payload);

	}

	static class Implementation implements Contract {

		@Override
		public void handle(String payload) {
		}

	}

	static class TwoParameters {

		@RedeqListener(topic = "bad")
		void handle(String a, Integer b) {
		}

	}

	static class TwoDeliveries {

		@RedeqListener(topic = "bad")
		void handle(String payload, Delivery first, Delivery second) {
		}

	}

	static class NoPayload {

		@RedeqListener(topic = "bad")
		void handle(Delivery delivery) {
		}

	}

	static class PrivateMethod {

		@RedeqListener(topic = "bad")
		private void handle(String payload) {
		}

	}

	static class StaticMethod {

		@RedeqListener(topic = "bad")
		static void handle(String payload) {
		}

	}

	static class Generic<T> {

		@RedeqListener(topic = "bad")
		void handle(List<T> payload) {
		}

	}

	static class BadConcurrency {

		@RedeqListener(topic = "bad", concurrency = "${missing.concurrency:zero}")
		void handle(String payload) {
		}

	}

	static class BadRateLimit {

		@RedeqListener(topic = "bad", rateLimit = "100 per second")
		void handle(String payload) {
		}

	}

	static class BadTimeout {

		@RedeqListener(topic = "bad", timeout = "-1s")
		void handle(String payload) {
		}

	}

	static class BadTopic {

		@RedeqListener(topic = "bad topic")
		void handle(String payload) {
		}

	}

	static class SeveralTopics {

		@RedeqListener(topics = { "mail.welcome", "${app.mail.second}" }, concurrency = "${app.concurrency}")
		void send(String address, Delivery delivery) {
		}

	}

	static class TopicAndTopics {

		@RedeqListener(topic = "mail.welcome", topics = "mail.reminder")
		void handle(String payload) {
		}

	}

	static class NoTopic {

		@RedeqListener
		void handle(String payload) {
		}

	}

	static class BlankTopicEntry {

		@RedeqListener(topics = { "mail.welcome", " " })
		void handle(String payload) {
		}

	}

	static class EmptyTopicEntry {

		@RedeqListener(topics = { "${missing.topic:}", "mail.welcome" })
		void handle(String payload) {
		}

	}

	static class MalformedTopicEntry {

		@RedeqListener(topics = { "mail.welcome", "mail reminder" })
		void handle(String payload) {
		}

	}

	static class DuplicateTopicEntry {

		@RedeqListener(topics = { "mail.welcome", "mail.welcome" })
		void handle(String payload) {
		}

	}

	static class PlaceholderDuplicate {

		@RedeqListener(topics = { "mail.welcome", "${app.mail.second}" })
		void handle(String payload) {
		}

	}

	static class SharedAmongTopics {

		@RedeqListener(topics = { "mail.welcome", "shared" })
		void handle(String payload) {
		}

	}

	static class FirstOfTopic {

		@RedeqListener(topic = "shared")
		void handle(String payload) {
		}

	}

	static class SecondOfTopic {

		@RedeqListener(topic = "shared")
		void handle(String payload) {
		}

	}

}
