package io.redeq.example;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import io.redeq.Redeq;
import io.redeq.RedeqAdmin;
import io.redeq.RedeqClient;
import io.redeq.internal.redis.KeySpace;
import io.redeq.test.RedisServer;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The example's story end to end over HTTP, against a test redis-server: an unpaid order
 * is cancelled by its timeout, a paid one is not, and a reminder that always fails ends
 * up as a dead letter that the API shows.
 */
@RedisTest
class ExampleApplicationIntegrationTests {

	private final RedisServer redis;

	private final HttpClient http = HttpClient.newHttpClient();

	private ConfigurableApplicationContext app;

	private String base;

	ExampleApplicationIntegrationTests(RedisServer redis) {
		this.redis = redis;
	}

	@BeforeEach
	void start() {
		this.app = new SpringApplicationBuilder(ExampleApplication.class).run("--server.port=0",
				"--spring.data.redis.host=" + this.redis.host(), "--spring.data.redis.port=" + this.redis.port(),
				"--redeq.example.embedded-redis=never", "--example.order.payment-timeout=2s",
				"--example.reminder.failure-rate=1.0", "--example.reminder.max-attempts=2",
				"--redeq.consumer.backoff.initial=100ms", "--redeq.consumer.backoff.jitter=0");
		this.base = "http://localhost:" + this.app.getEnvironment().getProperty("local.server.port");
	}

	@AfterEach
	void stop() {
		this.app.close();
	}

	@Test
	void unpaidOrderIsCancelledAndPaidOrderIsNot() throws Exception {
		String unpaid = post("/orders", "{\"item\":\"book\"}");
		String paid = post("/orders", "{\"item\":\"lamp\"}");
		assertThat(unpaid).contains("\"id\":1").contains("\"status\":\"AWAITING_PAYMENT\"");
		assertThat(paid).contains("\"id\":2");
		assertThat(this.app.getBean(RedeqClient.class).find("order.timeout", "order-1")).isPresent();
		// The order's row and its timeout's outbox row committed together in
		// the embedded database.
		JdbcTemplate jdbc = this.app.getBean(JdbcTemplate.class);
		assertThat(jdbc.queryForObject("SELECT item FROM orders WHERE id = 1", String.class)).isEqualTo("book");
		await().atMost(Duration.ofSeconds(15))
			.until(() -> jdbc.queryForObject("SELECT state FROM redeq_job WHERE id = 'order-1'", String.class),
					"SCHEDULED"::equals);

		assertThat(post("/orders/2/pay", "")).contains("\"status\":\"PAID\"");
		assertThat(this.app.getBean(RedeqClient.class).find("order.timeout", "order-2")).isEmpty();

		await().atMost(Duration.ofSeconds(15)).until(() -> get("/orders/1").contains("\"status\":\"CANCELLED\""));
		assertThat(get("/orders/2")).contains("\"status\":\"PAID\"");
		await().atMost(Duration.ofSeconds(15))
			.until(() -> jdbc.queryForObject("SELECT state FROM redeq_job WHERE id = 'order-1'", String.class),
					"COMPLETED"::equals);
		// Journal events are written in the order they happened: the cancel came first.
		assertThat(jdbc.queryForObject("SELECT state FROM redeq_job WHERE id = 'order-2'", String.class))
			.isEqualTo("CANCELLED");
		assertThat(this.app.getBean(RedeqClient.class).find("order.timeout", "order-1")).isEmpty();
	}

	@Test
	void orderTimeoutsRunAndCancelAcrossAChangeOfTheBucketCount() throws Exception {
		post("/orders", "{\"item\":\"book\"}");
		post("/orders", "{\"item\":\"lamp\"}");
		RedeqAdmin admin = this.app.getBean(RedeqAdmin.class);
		// What an operator runs while the application serves (docs/redis.md): the jobs
		// move, and this instance follows the new count without a restart.
		admin.changeBucketCount(32);
		assertThat(this.app.getBean(Redeq.class).options().buckets()).isEqualTo(32);

		assertThat(post("/orders/2/pay", "")).contains("\"status\":\"PAID\"");
		await().atMost(Duration.ofSeconds(15)).until(() -> get("/orders/1").contains("\"status\":\"CANCELLED\""));
		assertThat(get("/orders/2")).contains("\"status\":\"PAID\"");
		// The handler cancelled the order; the job completes once it returned.
		await().atMost(Duration.ofSeconds(10)).until(() -> admin.stats("order.timeout").pending() == 0);
	}

	@Test
	void payingEveryOpenOrderCancelsTheirTimeoutsInOneCall() throws Exception {
		for (String item : new String[] { "pen", "ink", "paper" }) {
			post("/orders", "{\"item\":\"" + item + "\"}");
		}
		RedeqClient client = this.app.getBean(RedeqClient.class);
		assertThat(client.find("order.timeout", "order-3")).isPresent();

		assertThat(post("/orders/pay-all", "")).contains("\"paid\":3").contains("\"timeoutsCancelled\":3");

		for (int id = 1; id <= 3; id++) {
			assertThat(client.find("order.timeout", "order-" + id)).isEmpty();
			assertThat(get("/orders/" + id)).contains("\"status\":\"PAID\"");
		}
		JdbcTemplate jdbc = this.app.getBean(JdbcTemplate.class);
		await().atMost(Duration.ofSeconds(15))
			.until(() -> jdbc.queryForObject("SELECT COUNT(*) FROM redeq_job WHERE state = 'CANCELLED'", Integer.class),
					(count) -> count == 3);
	}

	@Test
	void reminderThatAlwaysFailsBecomesAVisibleDeadLetter() throws Exception {
		String created = post("/reminders", "{\"to\":\"ada\",\"text\":\"standup\",\"in\":\"0s\"}");
		String id = created.replaceAll(".*\"id\":\"([^\"]+)\".*", "$1");
		await().atMost(Duration.ofSeconds(15)).until(() -> get("/reminders/dead").contains(id));
		assertThat(get("/reminders/dead")).contains("mail server did not answer").contains("\"attempts\":2");
		assertThat(this.app.getBean(RedeqAdmin.class).stats("reminder").dead()).isEqualTo(1);

		// An urgent reminder: the same listener method on its own topic, with its own
		// settings (application.yml), shown among the dead letters too.
		String urgent = post("/reminders", "{\"to\":\"grace\",\"text\":\"fire drill\",\"in\":\"0s\",\"urgent\":true}")
			.replaceAll(".*\"id\":\"([^\"]+)\".*", "$1");
		await().atMost(Duration.ofSeconds(15)).until(() -> get("/reminders/dead").contains(urgent));
		assertThat(this.app.getBean(RedeqAdmin.class).stats("reminder.urgent").dead()).isEqualTo(1);
		assertThat(this.app.getBean(RedeqAdmin.class).deadJobs("reminder.urgent", 0, 10)).singleElement()
			.satisfies((dead) -> assertThat(dead.id()).isEqualTo(urgent))
			.satisfies((dead) -> assertThat(dead.attempts()).isEqualTo(2));
		assertThat(get("/reminders/dead")).contains("\"topic\":\"reminder.urgent\"");
	}

	@Test
	void aReminderStoresTheTraceOfTheRequestThatScheduledIt() throws Exception {
		String created = post("/reminders", "{\"to\":\"ada\",\"text\":\"later\",\"in\":\"1h\"}");
		String id = created.replaceAll(".*\"id\":\"([^\"]+)\".*", "$1");

		String jobKey = "reminder:" + id;
		KeySpace keys = new KeySpace("redeq", 16);
		try (RedisClient client = RedisClient.create(RedisURI.create(this.redis.host(), this.redis.port()));
				StatefulRedisConnection<String, String> connection = client.connect()) {
			String stored = connection.sync().hget(keys.tag(keys.bucketOf(jobKey)) + ":payload", jobKey);
			// <created, base 64>;v<version> <W3C traceparent>|<payload>: the journal
			// gives the job its version, observation and a tracer are on
			assertThat(stored).matches(
					"[0-9A-Za-z_-]{7};v[0-9A-Za-z_-]{11} 00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}\\|\\{.*\"later\".*");
		}
	}

	@Test
	void exposesHealthMetricsPrometheusAndTheRedeqEndpoint() throws Exception {
		post("/reminders", "{\"to\":\"ada\",\"text\":\"standup\",\"in\":\"0s\"}");
		await().atMost(Duration.ofSeconds(15)).until(() -> get("/actuator/redeq").contains("\"dead\":1"));
		assertThat(get("/actuator/redeq")).contains("\"topic\":\"reminder\"").contains("\"owned\":[");
		// One listener method on two topics is listed once per topic, each
		// with its settings.
		JsonNode urgent = null;
		for (JsonNode listener : JsonMapper.builder().build().readTree(get("/actuator/redeq")).get("listeners")) {
			if (listener.get("topic").asString().equals("reminder.urgent")) {
				urgent = listener;
			}
		}
		assertThat(urgent).as("listener of reminder.urgent").isNotNull();
		assertThat(urgent.get("method").asString()).isEqualTo("method io.redeq.example.reminder.ReminderListener"
				+ ".send(Reminder, Delivery) of bean 'reminderListener'");
		assertThat(urgent.get("concurrency").asInt()).isEqualTo(4);
		assertThat(urgent.get("maxAttempts").asInt()).isEqualTo(2);
		assertThat(get("/actuator/redeq")).contains("\"id\":\"daily-sales\"")
			.contains("\"cron\":\"0 0 9 * * MON-FRI\"")
			.contains("\"zone\":\"Europe/Berlin\"");
		assertThat(get("/actuator/redeq/reminder")).contains("mail server did not answer");
		await().atMost(Duration.ofSeconds(10)).until(() -> get("/actuator/health/redeq").contains("\"status\":\"UP\""));
		assertThat(get("/actuator/health/redeqJournal")).contains("\"status\":\"UP\"").contains("\"lag\"");
		assertThat(get("/actuator/prometheus")).contains("redeq_journal_lag");
		assertThat(get("/actuator/metrics/redeq.jobs.dead")).contains("\"value\":1.0");
		assertThat(get("/actuator/prometheus")).contains("redeq_jobs_dead_total{")
			.contains("redeq_jobs_lateness_seconds_bucket{")
			.contains("redeq_jobs_pending{");
		// Observation is on in the example: scheduling and handler runs are timed too.
		assertThat(get("/actuator/metrics/redeq.schedule")).contains("\"reminder\"");
		assertThat(get("/actuator/metrics/redeq.process")).contains("\"reminder\"");
	}

	@Test
	void aBurstOfSmsLeavesAtTheTopicsRateLimit() throws Exception {
		assertThat(post("/sms/burst?count=10", "{}")).contains("\"scheduled\":10");
		RedeqAdmin admin = this.app.getBean(RedeqAdmin.class);
		long start = System.nanoTime();
		await().atMost(Duration.ofSeconds(20)).until(() -> admin.stats("sms.send").pending() == 0);
		// 10 messages at 5 per second: the last can start no sooner than a second
		// after the first.
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofSeconds(1));
		assertThat(get("/actuator/redeq")).contains("\"rateLimit\":\"5/1000ms\"");
	}

	@Test
	void reportsArePulledWithPollBuiltAndAckedOrFailedWhenUnknown() throws Exception {
		String id = post("/reports", "{\"name\":\"sales\",\"in\":\"300ms\"}").replaceAll(".*\"id\":\"([^\"]+)\".*",
				"$1");

		// Woken when the request becomes due, well within the wait.
		HttpResponse<String> built = send("/reports/next?wait=10s");
		assertThat(built.statusCode()).isEqualTo(200);
		assertThat(built.body()).contains("\"id\":\"" + id + "\"").contains("The sales report");
		assertThat(this.app.getBean(RedeqClient.class).find("report.build", id)).isEmpty();
		JdbcTemplate jdbc = this.app.getBean(JdbcTemplate.class);
		await().atMost(Duration.ofSeconds(15))
			.until(() -> jdbc.queryForObject("SELECT state FROM redeq_job WHERE id = ?", String.class, id),
					"COMPLETED"::equals);

		post("/reports", "{\"name\":\"horoscope\"}");
		assertThat(send("/reports/next?wait=10s").statusCode()).isEqualTo(422);
		assertThat(this.app.getBean(RedeqAdmin.class).deadJobs("report.build", 0, 10)).singleElement()
			.satisfies((dead) -> assertThat(dead.lastError()).contains("no report named horoscope"));

		assertThat(send("/reports/next?wait=200ms").statusCode()).isEqualTo(204);
	}

	private HttpResponse<String> send(String path) throws Exception {
		HttpRequest request = HttpRequest.newBuilder(URI.create(this.base + path))
			.POST(HttpRequest.BodyPublishers.noBody())
			.build();
		return this.http.send(request, HttpResponse.BodyHandlers.ofString());
	}

	private String post(String path, String json) throws Exception {
		HttpRequest request = HttpRequest.newBuilder(URI.create(this.base + path))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(json))
			.build();
		HttpResponse<String> response = this.http.send(request, HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).as(path + ": " + response.body()).isBetween(200, 299);
		return response.body();
	}

	private String get(String path) throws Exception {
		HttpResponse<String> response = this.http.send(HttpRequest.newBuilder(URI.create(this.base + path)).build(),
				HttpResponse.BodyHandlers.ofString());
		return response.body();
	}

}
