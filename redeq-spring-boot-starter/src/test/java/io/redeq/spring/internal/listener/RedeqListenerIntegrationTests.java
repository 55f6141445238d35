package io.redeq.spring.internal.listener;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.aopalliance.intercept.MethodInterceptor;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.PropertyNamingStrategies;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.aop.framework.ProxyFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;

import io.redeq.DeadJob;
import io.redeq.Delivery;
import io.redeq.JobLifecycleListener;
import io.redeq.JobState;
import io.redeq.Redeq;
import io.redeq.RedeqAdmin;
import io.redeq.RedeqClient;
import io.redeq.spring.RedeqListener;
import io.redeq.spring.boot.autoconfigure.RedeqAutoConfiguration;
import io.redeq.spring.internal.endpoint.RedeqEndpoint;
import io.redeq.spring.internal.endpoint.RedeqEndpoint.ListenerDescriptor;
import io.redeq.test.RedisServer;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

/**
 * {@code @RedeqListener} delivery in a Spring context against a real redis-server. How
 * listener methods are found, resolved and refused is tested without Redis in
 * {@link RedeqListenerAnnotationBeanPostProcessorTests}.
 */
@RedisTest
class RedeqListenerIntegrationTests {

	private final ApplicationContextRunner runner;

	RedeqListenerIntegrationTests(RedisServer server) {
		this.runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedeqAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + server.host(), "spring.data.redis.port=" + server.port(),
					"redeq.consumer.backoff.initial=50ms", "redeq.consumer.backoff.jitter=0");
	}

	@Test
	void deliversTypedPayloadsWithTheirDelivery() {
		this.runner.withBean(TypedListeners.class).run((context) -> {
			RedeqClient client = context.getBean(RedeqClient.class);
			Received received = context.getBean(TypedListeners.class).received;
			String id = client.schedule("records", new Item("apple", 3), Duration.ofMillis(100));
			client.schedule("strings", "hello", Duration.ZERO);
			client.schedule("lists", List.of(new Item("pear", 1), new Item("fig", 2)), Duration.ZERO);
			await().atMost(Duration.ofSeconds(10)).until(() -> received.payloads.size() == 3);
			assertThat(received.payloads).containsExactlyInAnyOrder(new Item("apple", 3), "hello", new Item("pear", 1));
			Delivery delivery = received.deliveries.get(0);
			assertThat(delivery.id()).isEqualTo(id);
			assertThat(delivery.topic()).isEqualTo("records");
			assertThat(delivery.attempt()).isEqualTo(1);
			assertThat(context.getBean(RedeqListenerEndpointRegistry.class).listeners()).containsOnlyKeys("records",
					"strings", "lists");
		});
	}

	@Test
	void resolvesPlaceholdersAndRunsAtTheResolvedConcurrency() {
		this.runner.withBean(PlaceholderListener.class)
			.withPropertyValues("app.topic=resolved.topic", "app.concurrency=3")
			.run((context) -> {
				ListenerMethod listener = context.getBean(RedeqListenerEndpointRegistry.class)
					.listeners()
					.get("resolved.topic");
				assertThat(listener.concurrency()).isEqualTo(3);
				assertThat(listener.maxAttempts()).isEqualTo(2);
				assertThat(listener.timeout()).isEqualTo(Duration.ofSeconds(45));
				PlaceholderListener bean = context.getBean(PlaceholderListener.class);
				RedeqClient client = context.getBean(RedeqClient.class);
				for (int i = 0; i < 4; i++) {
					client.schedule("resolved.topic", "job-" + i, Duration.ZERO);
				}
				await().atMost(Duration.ofSeconds(10)).until(() -> bean.running.get() == 3);
				assertThat(bean.threads).hasSize(3);
				bean.release.countDown();
				await().atMost(Duration.ofSeconds(10)).until(() -> bean.running.get() == 4);
			});
	}

	@Test
	void topicPropertiesApplyWhenTheAnnotationLeavesThemEmpty() {
		this.runner.withBean(PlaceholderListener.class)
			.withPropertyValues("app.topic=order.timeout", "app.concurrency=",
					"redeq.topics.order.timeout.concurrency=2")
			.run((context) -> {
				PlaceholderListener bean = context.getBean(PlaceholderListener.class);
				RedeqClient client = context.getBean(RedeqClient.class);
				for (int i = 0; i < 3; i++) {
					client.schedule("order.timeout", "job-" + i, Duration.ZERO);
				}
				await().atMost(Duration.ofSeconds(10)).until(() -> bean.running.get() == 2);
				assertThat(context.getBean(RedeqAdmin.class).stats("order.timeout").inFlight()).isEqualTo(2);
				bean.release.countDown();
				await().atMost(Duration.ofSeconds(10)).until(() -> bean.running.get() == 3);
			});
	}

	@Test
	void retriesThenBuriesWithTheListenersOwnExceptionAndUsesTheApplicationsMapper() {
		this.runner.withBean(FailingListener.class)
			.withBean(Outcomes.class)
			.withUserConfiguration(SnakeCaseMapper.class)
			.run((context) -> {
				String id = context.getBean(RedeqClient.class).schedule("failing", new Item("apple", 1), Duration.ZERO);
				RedeqAdmin admin = context.getBean(RedeqAdmin.class);
				await().atMost(Duration.ofSeconds(10)).until(() -> admin.stats("failing").dead() == 1);
				assertThat(context.getBean(FailingListener.class).attempts).containsExactly(1, 2);
				DeadJob dead = admin.deadJobs("failing", 0, 10).get(0);
				assertThat(dead.id()).isEqualTo(id);
				assertThat(dead.lastError()).contains("IllegalStateException")
					.contains("warehouse apple is closed")
					.doesNotContain("InvocationTargetException");
				assertThat(dead.payload()).contains("\"sku_code\"");
				assertThat(context.getBean(Outcomes.class).events)
					.containsExactly("retry:IllegalStateException:warehouse apple is closed", "dead:" + id);
			});
	}

	@Test
	void findsListenersOnProxiedBeansAndCallsThroughTheProxy() {
		this.runner.withBean(ProxiedListener.class).withUserConfiguration(ClassProxying.class).run((context) -> {
			ProxiedListener proxy = context.getBean(ProxiedListener.class);
			assertThat(AopUtils.isCglibProxy(proxy)).isTrue();
			context.getBean(RedeqClient.class).schedule("proxied", "ada", Duration.ZERO);
			await().atMost(Duration.ofSeconds(10)).until(() -> proxy.received().size() == 1);
			assertThat(ClassProxying.intercepted).contains("handle");
		});
	}

	@Test
	void oneMethodOnTwoTopicsRunsEachWithItsTopicAndItsOwnSettings() {
		this.runner.withBean(MailListener.class)
			.withPropertyValues("redeq.consumer.prefetch=0", "redeq.topics.mail.welcome.max-attempts=1",
					"redeq.topics.mail.welcome.concurrency=1", "redeq.topics.mail.reminder.max-attempts=3",
					"redeq.topics.mail.reminder.concurrency=2")
			.run((context) -> {
				MailListener mail = context.getBean(MailListener.class);
				RedeqClient client = context.getBean(RedeqClient.class);
				RedeqAdmin admin = context.getBean(RedeqAdmin.class);

				String welcome = client.schedule("mail.welcome", "ada", Duration.ZERO);
				String reminder = client.schedule("mail.reminder", "bob", Duration.ZERO);
				await().atMost(Duration.ofSeconds(10)).until(() -> mail.sent.size() == 2);
				assertThat(mail.sent).containsExactlyInAnyOrder("mail.welcome:" + welcome + ":ada",
						"mail.reminder:" + reminder + ":bob");

				// Each topic's concurrency: 1 and 2 handlers at once, the rest waits
				// READY (no prefetch, so in-flight jobs are running ones).
				for (int i = 0; i < 3; i++) {
					client.schedule("mail.welcome", "hold", Duration.ZERO);
					client.schedule("mail.reminder", "hold", Duration.ZERO);
				}
				await().atMost(Duration.ofSeconds(10))
					.until(() -> mail.holding("mail.welcome") == 1 && mail.holding("mail.reminder") == 2);
				await().during(Duration.ofMillis(300))
					.atMost(Duration.ofSeconds(2))
					.until(() -> mail.holding("mail.welcome") == 1 && mail.holding("mail.reminder") == 2);
				assertThat(admin.stats("mail.welcome").inFlight()).isEqualTo(1);
				assertThat(admin.stats("mail.reminder").inFlight()).isEqualTo(2);
				mail.release.countDown();
				await().atMost(Duration.ofSeconds(10))
					.until(() -> mail.holding("mail.welcome") == 3 && mail.holding("mail.reminder") == 3);

				// Each topic's max-attempts: a job that always fails is dead after
				// 1 and 3.
				client.schedule("mail.welcome", "fail", Duration.ZERO);
				client.schedule("mail.reminder", "fail", Duration.ZERO);
				await().atMost(Duration.ofSeconds(10))
					.until(() -> admin.stats("mail.welcome").dead() == 1 && admin.stats("mail.reminder").dead() == 1);
				assertThat(admin.deadJobs("mail.welcome", 0, 10)).extracting(DeadJob::attempts).containsExactly(1);
				assertThat(admin.deadJobs("mail.reminder", 0, 10)).extracting(DeadJob::attempts).containsExactly(3);
				assertThat(mail.failures).containsExactlyInAnyOrder("mail.welcome:1", "mail.reminder:1",
						"mail.reminder:2", "mail.reminder:3");

				// The registry, and so the endpoint and the dashboard, list each topic.
				RedeqListenerEndpointRegistry registry = context.getBean(RedeqListenerEndpointRegistry.class);
				assertThat(registry.listeners()).containsOnlyKeys("mail.welcome", "mail.reminder");
				List<ListenerDescriptor> described = new RedeqEndpoint(context.getBean(Redeq.class), registry).redeq()
					.listeners();
				assertThat(described)
					.extracting(ListenerDescriptor::topic, ListenerDescriptor::concurrency,
							ListenerDescriptor::maxAttempts, ListenerDescriptor::running)
					.containsExactlyInAnyOrder(tuple("mail.welcome", 1, 1, true), tuple("mail.reminder", 2, 3, true));
				assertThat(described).extracting(ListenerDescriptor::method)
					.containsOnly(registry.listeners().get("mail.welcome").description());
			});
	}

	@Test
	void producerOnlyModeSchedulesButNeverConsumes() {
		this.runner.withBean(SilentListener.class).withPropertyValues("redeq.consumer.enabled=false").run((context) -> {
			assertThat(context).hasNotFailed();
			String id = context.getBean(RedeqClient.class).schedule("silent", "x", Duration.ZERO);
			// The migrator still runs: the job becomes READY and stays there
			// for another application.
			await().atMost(Duration.ofSeconds(10))
				.until(() -> context.getBean(RedeqClient.class)
					.find("silent", id)
					.map((info) -> info.state() == JobState.READY)
					.orElse(false));
			assertThat(context.getBean(Redeq.class).subscribedTopics()).isEmpty();
			assertThat(context.getBean(SilentListener.class).calls).hasValue(0);
		});
	}

	record Item(String skuCode, int quantity) {
	}

	static class Received {

		final List<Object> payloads = new CopyOnWriteArrayList<>();

		final List<Delivery> deliveries = new CopyOnWriteArrayList<>();

	}

	// Public, as most listener beans are; onString covers package-private methods.
	public static class TypedListeners {

		final Received received = new Received();

		@RedeqListener(topic = "records")
		public void onRecord(Item item, Delivery delivery) {
			this.received.payloads.add(item);
			this.received.deliveries.add(delivery);
		}

		// Delivery first, package-private: both allowed.
		@RedeqListener(topic = "strings")
		void onString(Delivery delivery, String text) {
			this.received.payloads.add(text);
		}

		@RedeqListener(topic = "lists")
		public void onList(List<Item> items) {
			// Reading items.get(0) as an Item proves the generic type reached Jackson.
			this.received.payloads.add(items.get(0));
		}

	}

	static class PlaceholderListener {

		final Set<String> threads = ConcurrentHashMap.newKeySet();

		final CountDownLatch release = new CountDownLatch(1);

		final AtomicInteger running = new AtomicInteger();

		@RedeqListener(topic = "${app.topic}", concurrency = "${app.concurrency}", maxAttempts = "#{1 + 1}",
				timeout = "${app.timeout:45s}")
		void handle(String payload) throws InterruptedException {
			this.running.incrementAndGet();
			this.threads.add(Thread.currentThread().getName());
			this.release.await(20, TimeUnit.SECONDS);
		}

	}

	static class MailListener {

		final List<String> sent = new CopyOnWriteArrayList<>();

		final List<String> failures = new CopyOnWriteArrayList<>();

		final Map<String, AtomicInteger> holding = new ConcurrentHashMap<>();

		final CountDownLatch release = new CountDownLatch(1);

		@RedeqListener(topics = { "mail.welcome", "mail.reminder" })
		void send(String address, Delivery delivery) throws InterruptedException {
			switch (address) {
				case "hold" -> {
					this.holding.computeIfAbsent(delivery.topic(), (topic) -> new AtomicInteger()).incrementAndGet();
					this.release.await(20, TimeUnit.SECONDS);
				}
				case "fail" -> {
					this.failures.add(delivery.topic() + ":" + delivery.attempt());
					throw new IllegalStateException("mail server refused " + address);
				}
				default -> this.sent.add(delivery.topic() + ":" + delivery.id() + ":" + address);
			}
		}

		int holding(String topic) {
			AtomicInteger count = this.holding.get(topic);
			return (count != null) ? count.get() : 0;
		}

	}

	static class FailingListener {

		final List<Integer> attempts = new CopyOnWriteArrayList<>();

		@RedeqListener(topic = "failing", maxAttempts = "2")
		void handle(Item item, Delivery delivery) {
			this.attempts.add(delivery.attempt());
			throw new IllegalStateException("warehouse " + item.skuCode() + " is closed");
		}

	}

	static class Outcomes implements JobLifecycleListener {

		final List<String> events = new CopyOnWriteArrayList<>();

		@Override
		public void onRetry(Delivery delivery, Throwable error, Instant nextAttemptAt) {
			this.events.add("retry:" + error.getClass().getSimpleName() + ":" + error.getMessage());
		}

		@Override
		public void onDead(Delivery delivery, String reason) {
			this.events.add("dead:" + delivery.id());
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class SnakeCaseMapper {

		@Bean
		JsonMapper jsonMapper() {
			return JsonMapper.builder().propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE).build();
		}

	}

	interface Greeter {

		void greet(String name);

	}

	// Public, as proxied beans are: CGLIB intercepts their public methods.
	public static class ProxiedListener {

		final List<String> received = new CopyOnWriteArrayList<>();

		@RedeqListener(topic = "proxied")
		public void handle(String name) {
			this.received.add(name);
		}

		// Through the proxy: a CGLIB proxy's own fields are never initialised.
		public List<String> received() {
			return this.received;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ClassProxying {

		static final List<String> intercepted = new CopyOnWriteArrayList<>();

		// Ordered first, as Spring's auto-proxy creators are (AopConfigUtils
		// gives them HIGHEST_PRECEDENCE).
		@Bean
		static OrderedProxyingPostProcessor classProxies() {
			return new OrderedProxyingPostProcessor();
		}

		static final class OrderedProxyingPostProcessor implements BeanPostProcessor, Ordered {

			@Override
			public int getOrder() {
				return HIGHEST_PRECEDENCE;
			}

			@Override
			public Object postProcessAfterInitialization(Object bean, String beanName) {
				if (!(bean instanceof ProxiedListener)) {
					return bean;
				}
				ProxyFactory factory = new ProxyFactory(bean);
				factory.setProxyTargetClass(true);
				factory.addAdvice((MethodInterceptor) (invocation) -> {
					intercepted.add(invocation.getMethod().getName());
					return invocation.proceed();
				});
				return factory.getProxy();
			}

		}

	}

	static class SilentListener {

		final AtomicInteger calls = new AtomicInteger();

		@RedeqListener(topic = "silent")
		void handle(String payload) {
			this.calls.incrementAndGet();
		}

		// Invalid on purpose: producer-only mode must not even check listeners.
		@RedeqListener(topic = "silent.invalid")
		void invalid(String a, String b) {
		}

	}

}
