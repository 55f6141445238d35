package io.redeq.spring.internal.forward;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.amqp.core.BindingBuilder;
import org.springframework.amqp.core.DirectExchange;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.core.RabbitAdmin;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.redeq.DeadJob;
import io.redeq.Job;
import io.redeq.RedeqAdmin;
import io.redeq.RedeqClient;
import io.redeq.spring.boot.autoconfigure.RedeqAutoConfiguration;
import io.redeq.test.RabbitMqServer;
import io.redeq.test.RedisServer;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Topics forwarded to a real RabbitMQ node (one per class, started by the test support)
 * from a real Redis: what is published, when a job completes, and what happens when the
 * broker cannot take a job.
 */
@RedisTest
class RabbitForwardIntegrationTests {

	private static final String TOPIC = "push.remind";

	private static final String QUEUE = "reminders";

	private static RabbitMqServer rabbit;

	private final ApplicationContextRunner runner;

	private CachingConnectionFactory testConnections;

	private RabbitTemplate testTemplate;

	RabbitForwardIntegrationTests(RedisServer redis) {
		this.runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RabbitAutoConfiguration.class,
					RedeqAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port(),
					"spring.rabbitmq.host=" + rabbit.host(), "spring.rabbitmq.port=" + rabbit.port(),
					"spring.rabbitmq.publisher-confirm-type=correlated", "spring.rabbitmq.publisher-returns=true",
					"redeq.topics.push.remind.forward.exchange=push", "redeq.topics.push.remind.backoff.initial=100ms",
					"redeq.topics.push.remind.backoff.max=1s", "redeq.topics.push.remind.backoff.jitter=0",
					"redeq.topics.push.remind.timeout=5s");
	}

	@BeforeAll
	static void startRabbit() {
		rabbit = new RabbitMqServer().start();
	}

	@AfterAll
	static void stopRabbit() {
		rabbit.close();
	}

	@BeforeEach
	void declareQueue() {
		this.testConnections = new CachingConnectionFactory(rabbit.host(), rabbit.port());
		this.testConnections.setUsername(RabbitMqServer.USER);
		this.testConnections.setPassword(RabbitMqServer.PASSWORD);
		this.testTemplate = new RabbitTemplate(this.testConnections);
		RabbitAdmin admin = new RabbitAdmin(this.testConnections);
		DirectExchange exchange = new DirectExchange("push", true, false);
		Queue queue = new Queue(QUEUE, true);
		admin.declareExchange(exchange);
		admin.declareQueue(queue);
		admin.purgeQueue(QUEUE, false);
		admin.declareBinding(BindingBuilder.bind(queue).to(exchange).with("remind"));
	}

	@AfterEach
	void closeTestConnections() {
		this.testConnections.destroy();
	}

	@Test
	void aDueJobIsPublishedWithItsHeadersAndExactJsonAndCompletesOnceConfirmed() {
		this.runner.withPropertyValues("redeq.topics.push.remind.forward.routing-key=remind").run((context) -> {
			RedeqClient client = context.getBean(RedeqClient.class);
			RedeqAdmin admin = context.getBean(RedeqAdmin.class);
			Instant dueAt = Instant.now().plusMillis(300).truncatedTo(ChronoUnit.MILLIS);
			client.schedule(Job.builder(TOPIC)
				.id("r-1")
				.payload(Map.of("user", "u-1", "amount", new BigDecimal("12.30000000000000000001")))
				.dueAt(dueAt)
				.build());
			client.schedule(TOPIC, null, Duration.ZERO);

			List<Message> received = receive(2);
			Message message = received.stream()
				.filter((m) -> "r-1".equals(m.getMessageProperties().getHeader("redeq-id")))
				.findFirst()
				.orElseThrow();
			assertThat(message.getMessageProperties().getContentType()).isEqualTo("application/json");
			assertThat(message.getMessageProperties().getMessageId()).isEqualTo("r-1");
			assertThat(message.getMessageProperties().getHeaders()).containsEntry("redeq-topic", TOPIC)
				.containsEntry("redeq-id", "r-1")
				.containsEntry("redeq-due-at", dueAt.toString())
				.containsEntry("redeq-attempt", 1);
			String body = new String(message.getBody(), StandardCharsets.UTF_8);
			assertThat(body).contains("\"user\":\"u-1\"").contains("\"amount\":12.30000000000000000001");
			Message nullPayload = received.stream().filter((m) -> m != message).findFirst().orElseThrow();
			assertThat(new String(nullPayload.getBody(), StandardCharsets.UTF_8)).isEqualTo("null");

			await().atMost(Duration.ofSeconds(10)).until(() -> admin.stats(TOPIC).pending() == 0);
			assertThat(client.find(TOPIC, "r-1")).isEmpty();
		});
	}

	@Test
	void anUnroutableJobIsRetriedWithBackoffAndDeadAfterItsLastAttempt() {
		this.runner
			.withPropertyValues("redeq.topics.push.remind.forward.routing-key=nobody",
					"redeq.topics.push.remind.max-attempts=2")
			.run((context) -> {
				RedeqClient client = context.getBean(RedeqClient.class);
				RedeqAdmin admin = context.getBean(RedeqAdmin.class);
				client.schedule(Job.builder(TOPIC).id("lost-1").payload("hello").build());

				await().atMost(Duration.ofSeconds(10)).until(() -> admin.stats(TOPIC).dead() == 1);
				DeadJob dead = admin.deadJobs(TOPIC, 0, 10).get(0);
				assertThat(dead.id()).isEqualTo("lost-1");
				assertThat(dead.attempts()).isEqualTo(2);
				assertThat(dead.lastError()).contains("unroutable").contains("312").contains("routing key 'nobody'");
				assertThat(this.testTemplate.receive(QUEUE)).isNull();
			});
	}

	@Test
	void aMissingExchangeClosesTheChannelAndFailsTheAttempt() {
		this.runner
			.withPropertyValues("redeq.topics.push.remind.forward.exchange=no-such-exchange",
					"redeq.topics.push.remind.forward.routing-key=remind", "redeq.topics.push.remind.max-attempts=2")
			.run((context) -> {
				RedeqClient client = context.getBean(RedeqClient.class);
				RedeqAdmin admin = context.getBean(RedeqAdmin.class);
				client.schedule(Job.builder(TOPIC).id("nowhere-1").payload("hello").build());

				// A channel closed by the broker makes Spring AMQP throw on one of its
				// own threads when it returns the channel to its cache; that is
				// not this test's.
				await().atMost(Duration.ofSeconds(10))
					.dontCatchUncaughtExceptions()
					.until(() -> admin.stats(TOPIC).dead() == 1);
				DeadJob dead = admin.deadJobs(TOPIC, 0, 10).get(0);
				assertThat(dead.attempts()).isEqualTo(2);
				assertThat(dead.lastError()).contains("nack").contains("no-such-exchange");
			});
	}

	/**
	 * The broker goes away while jobs fall due and comes back: every job arrives, and no
	 * attempt is published twice; a job arrives more than once only when an attempt's
	 * confirm was lost with the broker, and then each copy carries its own attempt.
	 */
	@Test
	void jobsThatFallDueWhileTheBrokerIsDownArriveOnceItIsBack() {
		int jobs = 200;
		this.runner
			.withPropertyValues("redeq.topics.push.remind.forward.routing-key=remind",
					"redeq.topics.push.remind.max-attempts=100", "redeq.topics.push.remind.concurrency=4")
			.run((context) -> {
				RedeqClient client = context.getBean(RedeqClient.class);
				RedeqAdmin admin = context.getBean(RedeqAdmin.class);
				Instant start = Instant.now();
				List<Job> batch = new ArrayList<>();
				for (int i = 0; i < jobs; i++) {
					batch.add(Job.builder(TOPIC)
						.id("job-" + i)
						.payload(i)
						.dueAt(start.plusMillis(500 + i * 10L))
						.build());
				}
				client.scheduleAll(batch);
				List<Message> received = new CopyOnWriteArrayList<>();
				// Some jobs go out before the broker stops, the rest fall due while
				// it is down.
				await().atMost(Duration.ofSeconds(10)).until(() -> drainInto(received) >= 20);
				rabbit.stop();
				await().atMost(Duration.ofSeconds(20))
					.dontCatchUncaughtExceptions()
					.until(() -> client.find(TOPIC, "job-" + (jobs - 1))
						.map((job) -> job.attempts() >= 2)
						.orElse(false));
				rabbit.start();

				await().atMost(Duration.ofSeconds(60)).dontCatchUncaughtExceptions().ignoreExceptions().until(() -> {
					drainInto(received);
					return distinctIds(received) == jobs;
				});
				await().atMost(Duration.ofSeconds(10)).until(() -> admin.stats(TOPIC).pending() == 0);
				assertThat(admin.stats(TOPIC).dead()).isZero();
				Map<String, List<Integer>> attemptsById = received.stream()
					.collect(Collectors.groupingBy((m) -> (String) m.getMessageProperties().getHeader("redeq-id"),
							Collectors.mapping((m) -> (Integer) m.getMessageProperties().getHeader("redeq-attempt"),
									Collectors.toList())));
				assertThat(attemptsById).hasSize(jobs);
				attemptsById.forEach(
						(id, attempts) -> assertThat(Set.copyOf(attempts)).as("attempts of %s published once each", id)
							.hasSameSizeAs(attempts));
				assertThat(attemptsById.values().stream().mapToInt(List::size).max().orElse(0)).as("copies of one job")
					.isLessThanOrEqualTo(2);
			});
	}

	/**
	 * The documented duplicate: the broker took an attempt's message but its confirm was
	 * lost, so the attempt failed and a later one published the job again. Each copy
	 * carries its own attempt, and the job completes once a confirm arrives.
	 */
	@Test
	void aLostConfirmFailsTheAttemptAndTheJobIsPublishedAgainWithItsNextAttempt() {
		try (ReplyDroppingProxy proxy = new ReplyDroppingProxy(rabbit.port())) {
			this.runner
				.withPropertyValues("spring.rabbitmq.port=" + proxy.port(),
						"redeq.topics.push.remind.forward.routing-key=remind", "redeq.topics.push.remind.timeout=2s",
						"redeq.topics.push.remind.max-attempts=20")
				.run((context) -> {
					RedeqClient client = context.getBean(RedeqClient.class);
					RedeqAdmin admin = context.getBean(RedeqAdmin.class);
					client.schedule(Job.builder(TOPIC).id("warm-up").payload("first").build());
					List<Message> received = receive(1);

					proxy.dropBrokerReplies();
					client.schedule(Job.builder(TOPIC).id("ack-lost").payload("second").build());
					await().atMost(Duration.ofSeconds(20))
						.dontCatchUncaughtExceptions()
						.until(() -> client.find(TOPIC, "ack-lost").map((job) -> job.attempts() >= 2).orElse(false));
					proxy.cutConnections();

					await().atMost(Duration.ofSeconds(30))
						.dontCatchUncaughtExceptions()
						.until(() -> admin.stats(TOPIC).pending() == 0);
					drainInto(received);
					List<Integer> attempts = received.stream()
						.filter((m) -> "ack-lost".equals(m.getMessageProperties().getHeader("redeq-id")))
						.map((m) -> (Integer) m.getMessageProperties().getHeader("redeq-attempt"))
						.toList();
					assertThat(attempts).as("copies of the job whose first confirm was lost")
						.hasSizeGreaterThanOrEqualTo(2)
						.contains(1)
						.doesNotHaveDuplicates();
					assertThat(admin.stats(TOPIC).dead()).isZero();
				});
		}
	}

	private static long distinctIds(List<Message> received) {
		return received.stream()
			.map((m) -> m.getMessageProperties().getHeader("redeq-id"))
			.collect(Collectors.toSet())
			.size();
	}

	/** Takes whatever the queue holds now; the count of messages received so far. */
	private int drainInto(List<Message> received) {
		for (int i = 0; i < 1000; i++) {
			Message message = this.testTemplate.receive(QUEUE);
			if (message == null) {
				break;
			}
			received.add(message);
		}
		return received.size();
	}

	private List<Message> receive(int count) {
		List<Message> received = new CopyOnWriteArrayList<>();
		await().atMost(Duration.ofSeconds(10)).until(() -> drainInto(received) >= count);
		assertThat(received).hasSize(count);
		return received;
	}

}
