package io.redeq.spring.internal.dashboard;

import java.net.CookieManager;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.lettuce.core.RedisClient;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configuration.EnableWebSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;

import io.redeq.Job;
import io.redeq.JobState;
import io.redeq.JobView;
import io.redeq.Redeq;
import io.redeq.RedeqAdmin;
import io.redeq.Subscription;
import io.redeq.SubscriptionOptions;
import io.redeq.internal.EngineAccess;
import io.redeq.spring.boot.autoconfigure.RedeqAutoConfiguration;
import io.redeq.spring.boot.autoconfigure.dashboard.RedeqDashboardAutoConfiguration;
import io.redeq.test.RedisServer;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The dashboard over real HTTP, on a web application with a random port and its own
 * redis-server: off by default, the numbers its pages show, escaping, who may use its
 * actions (a signed-in user with the role, whatever signed them in; the signed CSRF
 * token; read-only), and its addresses under a context path and behind a path prefix.
 */
@RedisTest
@ExtendWith(OutputCaptureExtension.class)
class DashboardIntegrationTests {

	private static final Pattern OWN_TOKEN = Pattern
		.compile("name=\"redeq-csrf\" value=\"([0-9a-f]{64}\\.[0-9a-f]{64})\"");

	private static final Pattern COOKIE_PATH = Pattern.compile("redeq-dashboard-csrf=[^;]+;.*Path=([^;]+)");

	private static final String NOBODY_WARNING = "redeq dashboard: its actions need a signed-in user";

	private static final Pattern SECURITY_TOKEN = Pattern.compile("name=\"_csrf\" value=\"([^\"]+)\"");

	private final RedisServer redis;

	private final CookieManager cookies = new CookieManager();

	private final HttpClient http = HttpClient.newBuilder()
		.cookieHandler(this.cookies)
		.connectTimeout(Duration.ofSeconds(5))
		.build();

	private final HttpClient cookieless = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	private ConfigurableApplicationContext app;

	private String base;

	private String authorization;

	DashboardIntegrationTests(RedisServer redis) {
		this.redis = redis;
	}

	@AfterEach
	void stop() {
		if (this.app != null) {
			this.app.close();
		}
	}

	@Test
	void isOffByDefault() throws Exception {
		start(App.class);
		assertThat(get("/redeq").statusCode()).isEqualTo(404);
	}

	@Test
	void overviewShowsEveryTopicsCountsAndTheTopicPageItsJobs() throws Exception {
		start(App.class, "--redeq.dashboard.enabled=true");
		Redeq redeq = this.app.getBean(Redeq.class);
		for (int i = 0; i < 3; i++) {
			redeq.client()
				.schedule(Job.builder("mail")
					.id("m-" + i)
					.payload(Map.of("to", "user" + i))
					.delay(Duration.ofHours(1 + i))
					.build());
		}
		killTwo(redeq);

		String overview = body(get("/redeq"));
		assertThat(cell(overview, "mail", "DELAYED")).isEqualTo("3");
		assertThat(cell(overview, "mail", "DEAD")).isEqualTo("0");
		assertThat(cell(overview, "payment", "DEAD")).isEqualTo("2");
		assertThat(overview).contains("id=\"card-dead\"><span>Dead</span><b class=\"state-dead\" data-count=\"2\">");
		assertThat(overview).contains("Redis up");

		String topic = body(get("/redeq/topics/mail?state=DELAYED"));
		assertThat(rows(topic)).containsExactly("m-0", "m-1", "m-2");
		assertThat(topic).contains("{&quot;to&quot;:&quot;user1&quot;}");
		String found = body(get("/redeq/topics/mail?id=m-2"));
		assertThat(found).contains("id=\"found\"").contains("user2");
		String dead = body(get("/redeq/dead"));
		assertThat(dead).contains("data-topic=\"payment\"").contains("IllegalStateException: card declined");
		String instance = body(get("/redeq/instance"));
		assertThat(instance).contains(redeq.instanceId());
		assertThat(body(get("/redeq/assets/dashboard.css"))).contains("--dead");
		assertThat(get("/redeq/assets/secret.txt").statusCode()).isEqualTo(404);
		assertThat(get("/redeq/topics/no:such").statusCode()).isEqualTo(400);
	}

	@Test
	void overviewAndTopicPageChartHowLateJobsStarted() throws Exception {
		// The server is shared by this class's tests: their jobs' lateness would blend
		// into the overview's figures.
		RedisClient client = RedisClient.create("redis://" + this.redis.host() + ":" + this.redis.port());
		try (var connection = client.connect()) {
			connection.sync().flushall();
		}
		finally {
			client.shutdown();
		}
		start(App.class, "--redeq.dashboard.enabled=true");
		Redeq redeq = this.app.getBean(Redeq.class);
		redeq.client().schedule(Job.builder("late.a").payload("x").delay(Duration.ofHours(1)).build());
		redeq.client().schedule(Job.builder("late.b").payload("x").delay(Duration.ofHours(1)).build());
		// Starts recorded as the engine reports them, with lateness the test chooses.
		EngineAccess.history(redeq).started("late.a", Duration.ofMillis(1_000));
		EngineAccess.history(redeq).started("late.a", Duration.ofMillis(2_000));
		EngineAccess.history(redeq).started("late.a", Duration.ofMillis(6_000));
		EngineAccess.history(redeq).started("late.b", Duration.ofMillis(500));
		EngineAccess.history(redeq).flush();

		// The engine's own 5 s flush may take some of the figures beside the test's: wait
		// until both have landed.
		await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
			String topic = body(get("/redeq/topics/late.a"));
			assertThat(topic).contains("<figure class=\"chart lateness\" id=\"chart-lateness\" data-starts=\"3\">")
				.contains("<span class=\"legend late-average\" data-ms=\"3000\"><i></i>Average <b>3s</b></span>")
				.contains("<span class=\"legend late-max\" data-ms=\"6000\"><i></i>Max <b>6s</b></span>")
				.contains("<polyline class=\"late-average\"")
				.contains("<polyline class=\"late-max\"");
			String overview = body(get("/redeq"));
			// All topics: 4 starts, 9.5 s in all, the largest 6 s.
			assertThat(overview).contains("<figure class=\"chart lateness\" id=\"chart-lateness\" data-starts=\"4\">")
				.contains("<span class=\"legend late-average\" data-ms=\"2375\"><i></i>Average <b>2s</b></span>")
				.contains("<span class=\"legend late-max\" data-ms=\"6000\">");
		});
	}

	@Test
	void payloadsAndErrorsAreEscaped() throws Exception {
		start(App.class, "--redeq.dashboard.enabled=true");
		Redeq redeq = this.app.getBean(Redeq.class);
		redeq.client()
			.schedule(Job.builder("mail")
				.id("x")
				.payload("<script>alert(1)</script>")
				.delay(Duration.ofHours(1))
				.build());

		String page = body(get("/redeq/topics/mail?state=DELAYED"));

		assertThat(page).contains("&lt;script&gt;alert(1)&lt;/script&gt;").doesNotContain("<script>alert");
	}

	@Test
	void actionsNeedThePagesTokenThenRequeueADeadJob() throws Exception {
		start(OperatorApp.class, "--redeq.dashboard.enabled=true");
		Redeq redeq = this.app.getBean(Redeq.class);
		List<String> ids = killTwo(redeq);
		String page = body(get("/redeq/topics/payment?state=DEAD"));
		String token = match(OWN_TOKEN, page);
		assertThat(page).contains("data-action=\"requeue\"").contains("data-action=\"purge\"");

		assertThat(post(form("requeue", ids.get(0), "redeq-csrf", "forged")).statusCode()).isEqualTo(403);
		assertThat(post(form("requeue", ids.get(0))).statusCode()).isEqualTo(403);
		assertThat(redeq.admin().stats("payment").dead()).isEqualTo(2);

		Map<String, String> requeue = form("requeue", ids.get(0), "redeq-csrf", token);
		requeue.put("return", "/redeq/topics/payment?state=DEAD");
		HttpResponse<String> done = post(requeue);
		assertThat(done.statusCode()).isEqualTo(303);
		assertThat(done.headers().firstValue("Location")).get()
			.asString()
			.startsWith("/redeq/topics/payment?state=DEAD&msg=Requeued");
		RedeqAdmin admin = redeq.admin();
		assertThat(admin.stats("payment").dead()).isEqualTo(1);
		assertThat(admin.job("payment", ids.get(0))).get().extracting(JobView::state).isEqualTo(JobState.READY);

		Map<String, String> elsewhere = form("purge", null, "redeq-csrf", token);
		elsewhere.put("return", "//evil.example/");
		HttpResponse<String> purged = post(elsewhere);
		assertThat(purged.headers().firstValue("Location")).get().asString().startsWith("/redeq?msg=Purged");
	}

	@Test
	void pausesAndResumesATopicAndRunsADelayedJobNow() throws Exception {
		start(OperatorApp.class, "--redeq.dashboard.enabled=true");
		Redeq redeq = this.app.getBean(Redeq.class);
		redeq.client().schedule(Job.builder("payment").id("later").payload("x").delay(Duration.ofHours(1)).build());
		String page = body(get("/redeq/topics/payment?state=DELAYED"));
		String token = match(OWN_TOKEN, page);
		assertThat(page).contains("data-action=\"pause\"").contains("data-action=\"promote\"");

		assertThat(post(form("pause", null, "redeq-csrf", token)).statusCode()).isEqualTo(303);
		assertThat(redeq.admin().isPaused("payment")).isTrue();
		String paused = body(get("/redeq/topics/payment?state=DELAYED"));
		assertThat(paused).contains("id=\"paused\"").contains("data-action=\"resume\"");

		assertThat(post(form("promote", "later", "redeq-csrf", token)).statusCode()).isEqualTo(303);
		assertThat(redeq.admin().job("payment", "later")).get().extracting(JobView::state).isEqualTo(JobState.READY);

		assertThat(post(form("resume", null, "redeq-csrf", token)).statusCode()).isEqualTo(303);
		assertThat(redeq.admin().isPaused("payment")).isFalse();
	}

	@Test
	void cancelsEveryDelayedJobOfATopic() throws Exception {
		start(OperatorApp.class, "--redeq.dashboard.enabled=true");
		Redeq redeq = this.app.getBean(Redeq.class);
		for (int i = 0; i < 3; i++) {
			redeq.client()
				.schedule(Job.builder("payment").id("later-" + i).payload("x").delay(Duration.ofHours(1)).build());
		}
		String page = body(get("/redeq/topics/payment?state=DELAYED"));
		String token = match(OWN_TOKEN, page);
		assertThat(page).contains("data-action=\"purge-delayed\"").doesNotContain("data-action=\"purge-ready\"");

		HttpResponse<String> done = post(form("purge-delayed", null, "redeq-csrf", token));

		assertThat(done.statusCode()).isEqualTo(303);
		assertThat(done.headers().firstValue("Location")).get().asString().startsWith("/redeq?msg=Cancelled+3");
		assertThat(redeq.admin().stats("payment").delayed()).isZero();
		assertThat(body(get("/redeq/topics/payment?state=DELAYED"))).doesNotContain("data-action=\"purge-delayed\"");
	}

	@Test
	void instancePageListsEveryLiveInstanceAndMarksTheOneServingIt() throws Exception {
		start(App.class, "--redeq.dashboard.enabled=true", "--redeq.migrator.lock-ttl=1s");
		Redeq served = this.app.getBean(Redeq.class);
		served.subscribe("mail", String.class, (text, delivery) -> {
		}, SubscriptionOptions.builder().concurrency(3).build());
		RedisClient lettuce = RedisClient.create(this.redis.uri());
		try {
			// An id the page must escape: ids only refuse ':'.
			Redeq other = Redeq.builder(lettuce).instanceId("other<b>").lockTtl(Duration.ofSeconds(1)).build();
			other.subscribe("sms", String.class, (text, delivery) -> {
			}, SubscriptionOptions.builder().concurrency(2).build());
			await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
				Map<String, String> rows = instanceRows(body(get("/redeq/instance")));
				assertThat(rows).containsOnlyKeys(served.instanceId(), "other&lt;b&gt;");
				assertThat(rows.get(served.instanceId())).contains("id=\"serving\"").contains("mail (3)");
				assertThat(rows.get("other&lt;b&gt;")).doesNotContain("serving").contains("sms (2)");
				assertThat(rows.values())
					.allSatisfy((row) -> assertThat(row).containsPattern("<td class=\"buckets\">\\d+: \\d+"));
			});
			assertThat(body(get("/redeq/instance"))).doesNotContain("other<b>");
			other.close();
			await().atMost(Duration.ofSeconds(30))
				.untilAsserted(() -> assertThat(instanceRows(body(get("/redeq/instance"))))
					.containsOnlyKeys(served.instanceId()));
		}
		finally {
			lettuce.shutdown();
		}
	}

	@Test
	void readOnlyHidesAndRefusesActions() throws Exception {
		start(App.class, "--redeq.dashboard.enabled=true", "--redeq.dashboard.read-only=true",
				"--redeq.dashboard.path=/ops/queues/");
		Redeq redeq = this.app.getBean(Redeq.class);
		List<String> ids = killTwo(redeq);
		String page = body(get("/ops/queues/topics/payment?state=DEAD"));
		assertThat(rows(page)).containsExactlyInAnyOrderElementsOf(ids);
		assertThat(page).doesNotContain("method=\"post\"").contains("id=\"read-only\"");

		HttpResponse<String> refused = post("/ops/queues/actions",
				form("requeue", ids.get(0), "redeq-csrf", cookieToken()));
		assertThat(refused.statusCode()).isEqualTo(403);
		assertThat(refused.body()).contains("read-only");
		assertThat(redeq.admin().stats("payment").dead()).isEqualTo(2);
	}

	@Test
	void underSpringSecurityActionsNeedTheRole() throws Exception {
		start(SecuredApp.class, "--redeq.dashboard.enabled=true", "--redeq.dashboard.action-role=QUEUE_OPS");
		Redeq redeq = this.app.getBean(Redeq.class);
		List<String> ids = killTwo(redeq);
		assertThat(get("/redeq").statusCode()).isEqualTo(401);

		login("viewer", "v");
		String viewerPage = body(get("/redeq/topics/payment?state=DEAD"));
		assertThat(viewerPage).doesNotContain("method=\"post\"").contains("view only");
		// The viewer's page has no form, so no Spring Security token: its filter or the
		// role check refuses (ActionGuardTests checks the role on its own).
		assertThat(post(form("requeue", ids.get(0), "redeq-csrf", cookieToken())).statusCode()).isEqualTo(403);
		assertThat(redeq.admin().stats("payment").dead()).isEqualTo(2);

		login("ops", "o");
		String opsPage = body(get("/redeq/topics/payment?state=DEAD"));
		assertThat(opsPage).contains("data-action=\"requeue\"");
		Map<String, String> asOps = form("requeue", ids.get(0), "redeq-csrf", match(OWN_TOKEN, opsPage));
		Map<String, String> withoutSecurityToken = new LinkedHashMap<>(asOps);
		assertThat(post(withoutSecurityToken).statusCode()).isEqualTo(403);
		asOps.put("_csrf", match(SECURITY_TOKEN, opsPage));
		assertThat(post(asOps).statusCode()).isEqualTo(303);
		assertThat(redeq.admin().stats("payment").dead()).isLessThan(2);
	}

	@Test
	void withoutAnySignInActionsStayOffAndStartupSaysSoOnce(CapturedOutput output) throws Exception {
		start(App.class, "--redeq.dashboard.enabled=true");
		Redeq redeq = this.app.getBean(Redeq.class);
		List<String> ids = killTwo(redeq);

		String page = body(get("/redeq/topics/payment?state=DEAD"));
		assertThat(page).doesNotContain("method=\"post\"").contains("view only");
		HttpResponse<String> refused = post(form("requeue", ids.get(0), "redeq-csrf", cookieToken()));
		assertThat(refused.statusCode()).isEqualTo(403);
		assertThat(refused.body()).contains("nobody is signed in");
		assertThat(redeq.admin().stats("payment").dead()).isEqualTo(2);
		assertThat(output.getOut().split(NOBODY_WARNING, -1)).hasSize(2);
		assertThat(output.getOut()).contains("redeq.dashboard.action-role").contains("spring-boot-starter-security");
	}

	@Test
	void aPlantedCookieWithAMatchingFieldIsRefusedUnlessThisApplicationSignedItForTheUser() throws Exception {
		start(OperatorApp.class, "--redeq.dashboard.enabled=true");
		Redeq redeq = this.app.getBean(Redeq.class);
		List<String> ids = killTwo(redeq);
		String genuine = match(OWN_TOKEN, body(get("/redeq/topics/payment?state=DEAD")));
		// What a sibling subdomain can plant: any cookie value, repeated in its form.
		String unsigned = "0123456789abcdef".repeat(4);
		String forged = genuine.substring(0, genuine.indexOf('.') + 1) + "0123456789abcdef".repeat(4);

		for (String planted : List.of(unsigned, forged, unsigned + "." + unsigned)) {
			HttpResponse<String> refused = postWithCookie("/redeq/actions", planted,
					form("requeue", ids.get(0), "redeq-csrf", planted));
			assertThat(refused.statusCode()).as(planted).isEqualTo(403);
			assertThat(refused.body()).contains("CSRF");
		}
		// A genuine token, issued to another user of the same dashboard, is
		// no good either.
		HttpResponse<String> otherUser = postWithCookie("/redeq/actions", genuine,
				form("requeue", ids.get(0), "redeq-csrf", genuine), "X-Test-User", "mallory");
		assertThat(otherUser.statusCode()).isEqualTo(403);
		assertThat(redeq.admin().stats("payment").dead()).isEqualTo(2);

		HttpResponse<String> done = postWithCookie("/redeq/actions", genuine,
				form("requeue", ids.get(0), "redeq-csrf", genuine));
		assertThat(done.statusCode()).isEqualTo(303);
		assertThat(redeq.admin().stats("payment").dead()).isEqualTo(1);
	}

	@Test
	void underAServletContextPathLinksAssetsCookieAndRedirectsIncludeIt() throws Exception {
		start(OperatorApp.class, "--redeq.dashboard.enabled=true", "--server.servlet.context-path=/shop");
		Redeq redeq = this.app.getBean(Redeq.class);
		List<String> ids = killTwo(redeq);
		assertThat(get("/redeq").statusCode()).isEqualTo(404);

		HttpResponse<String> overview = get("/shop/redeq");
		assertThat(body(overview)).contains("href=\"/shop/redeq/assets/dashboard.css\"")
			.contains("src=\"/shop/redeq/assets/dashboard.js\"")
			.contains("href=\"/shop/redeq/dead\" id=\"nav-dead\"")
			.contains("href=\"/shop/redeq/topics/payment?state&#x3D;DEAD\"");
		assertThat(match(COOKIE_PATH, overview.headers().firstValue("Set-Cookie").orElseThrow()))
			.isEqualTo("/shop/redeq");
		assertThat(body(get("/shop/redeq/assets/dashboard.css"))).contains("--dead");

		String page = body(get("/shop/redeq/topics/payment?state=DEAD"));
		assertThat(page).contains("action=\"/shop/redeq/actions\"")
			.contains("name=\"return\" value=\"/shop/redeq/topics/payment?state&#x3D;DEAD\"");
		String token = match(OWN_TOKEN, page);
		Map<String, String> requeue = form("requeue", ids.get(0), "redeq-csrf", token);
		requeue.put("return", "/shop/redeq/topics/payment?state=DEAD");
		HttpResponse<String> done = post("/shop/redeq/actions", requeue);
		assertThat(done.statusCode()).isEqualTo(303);
		assertThat(done.headers().firstValue("Location")).get()
			.asString()
			.startsWith("/shop/redeq/topics/payment?state=DEAD&msg=Requeued");
		// A path outside the context path is not a page of this dashboard.
		Map<String, String> outside = form("requeue", ids.get(1), "redeq-csrf", token);
		outside.put("return", "/redeq/topics/payment");
		assertThat(post("/shop/redeq/actions", outside).headers().firstValue("Location")).get()
			.asString()
			.startsWith("/shop/redeq?msg=Requeued");
	}

	@Test
	void behindAPathPrefixLinksAssetsCookieAndRedirectsIncludeIt() throws Exception {
		start(OperatorApp.class, "--redeq.dashboard.enabled=true", "--server.servlet.context-path=/shop",
				"--server.forward-headers-strategy=framework");
		Redeq redeq = this.app.getBean(Redeq.class);
		List<String> ids = killTwo(redeq);

		// A proxy serves the application's /shop at /ops: the forwarded prefix stands in
		// for the context path (Spring's ForwardedHeaderFilter).
		HttpResponse<String> page = send(request("/shop/redeq/topics/payment?state=DEAD").GET(), null,
				"X-Forwarded-Prefix", "/ops");
		assertThat(body(page)).contains("href=\"/ops/redeq/assets/dashboard.css\"")
			.contains("href=\"/ops/redeq\" id=\"nav-overview\"")
			.contains("action=\"/ops/redeq/actions\"")
			.contains("name=\"return\" value=\"/ops/redeq/topics/payment?state&#x3D;DEAD\"");
		String setCookie = page.headers().firstValue("Set-Cookie").orElseThrow();
		assertThat(match(COOKIE_PATH, setCookie)).isEqualTo("/ops/redeq");
		String token = match(OWN_TOKEN, page.body());

		Map<String, String> requeue = form("requeue", ids.get(0), "redeq-csrf", token);
		requeue.put("return", "/ops/redeq/topics/payment?state=DEAD");
		HttpResponse<String> done = postWithCookie("/shop/redeq/actions", token, requeue, "X-Forwarded-Prefix", "/ops");
		assertThat(done.statusCode()).isEqualTo(303);
		assertThat(done.headers().firstValue("Location")).get()
			.asString()
			.startsWith("/ops/redeq/topics/payment?state=DEAD&msg=Requeued");
		assertThat(redeq.admin().stats("payment").dead()).isEqualTo(1);
	}

	@Test
	void failsStartupNamingJMustacheWhenItIsMissing() {
		new WebApplicationContextRunner().withClassLoader(new FilteredClassLoader("com.samskivert.mustache"))
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedeqAutoConfiguration.class,
					RedeqDashboardAutoConfiguration.class))
			.withPropertyValues("redeq.dashboard.enabled=true", "spring.data.redis.host=" + this.redis.host(),
					"spring.data.redis.port=" + this.redis.port())
			.run((context) -> {
				assertThat(context).hasFailed();
				Throwable cause = context.getStartupFailure();
				while (cause.getCause() != null) {
					cause = cause.getCause();
				}
				assertThat(cause).isInstanceOf(InvalidConfigurationPropertyValueException.class)
					.hasMessageContaining("redeq.dashboard.enabled")
					.hasMessageContaining("com.samskivert:jmustache");
			});
	}

	/**
	 * Two jobs of topic payment die at their first attempt; returns their ids. The
	 * subscription is closed then, so that a requeued job stays READY.
	 */
	private static List<String> killTwo(Redeq redeq) {
		Subscription subscription = redeq.subscribe("payment", String.class, (text, delivery) -> {
			throw new IllegalStateException("card declined");
		}, SubscriptionOptions.builder().maxAttempts(1).build());
		List<String> ids = new ArrayList<>();
		ids.add(redeq.client().schedule(Job.builder("payment").id("p-1").payload("one").build()));
		ids.add(redeq.client().schedule(Job.builder("payment").id("p-2").payload("two").build()));
		await().atMost(Duration.ofSeconds(20)).until(() -> redeq.admin().stats("payment").dead() == 2);
		subscription.close();
		return ids;
	}

	private void start(Class<?> application, String... args) {
		List<String> all = new ArrayList<>(List.of("--server.port=0", "--spring.data.redis.host=" + this.redis.host(),
				"--spring.data.redis.port=" + this.redis.port()));
		all.addAll(List.of(args));
		this.app = new SpringApplicationBuilder(application).run(all.toArray(String[]::new));
		this.base = "http://localhost:" + this.app.getEnvironment().getProperty("local.server.port");
	}

	private void login(String user, String password) {
		this.authorization = "Basic "
				+ Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
	}

	private HttpRequest.Builder request(String path) {
		HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(this.base + path))
			.timeout(Duration.ofSeconds(30));
		if (this.authorization != null) {
			builder.header("Authorization", this.authorization);
		}
		return builder;
	}

	private HttpResponse<String> get(String path) throws Exception {
		return this.http.send(request(path).GET().build(), HttpResponse.BodyHandlers.ofString());
	}

	private static String body(HttpResponse<String> response) {
		assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
		return response.body();
	}

	private HttpResponse<String> post(Map<String, String> form) throws Exception {
		return post("/redeq/actions", form);
	}

	private HttpResponse<String> post(String path, Map<String, String> form) throws Exception {
		return this.http.send(request(path).header("Content-Type", "application/x-www-form-urlencoded")
			.POST(HttpRequest.BodyPublishers.ofString(encode(form)))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	/**
	 * Posts with this cookie as the dashboard's, as a browser would send a planted one;
	 * and these headers, in name-value pairs.
	 */
	private HttpResponse<String> postWithCookie(String path, String cookie, Map<String, String> form, String... headers)
			throws Exception {
		HttpRequest.Builder request = request(path).header("Content-Type", "application/x-www-form-urlencoded")
			.POST(HttpRequest.BodyPublishers.ofString(encode(form)));
		return send(request, cookie, headers);
	}

	/** Sends without the cookie store: only the cookie given, if any. */
	private HttpResponse<String> send(HttpRequest.Builder request, String cookie, String... headers) throws Exception {
		if (cookie != null) {
			request.header("Cookie", ActionGuard.COOKIE + "=" + cookie);
		}
		for (int i = 0; i + 1 < headers.length; i += 2) {
			request.header(headers[i], headers[i + 1]);
		}
		return this.cookieless.send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

	private static String encode(Map<String, String> form) {
		StringBuilder encoded = new StringBuilder();
		form.forEach((name, value) -> encoded.append((encoded.length() > 0) ? "&" : "")
			.append(URLEncoder.encode(name, StandardCharsets.UTF_8))
			.append('=')
			.append(URLEncoder.encode(value, StandardCharsets.UTF_8)));
		return encoded.toString();
	}

	private static Map<String, String> form(String action, String id, String... more) {
		Map<String, String> form = new LinkedHashMap<>();
		form.put("action", action);
		form.put("topic", "payment");
		if (id != null) {
			form.put("id", id);
		}
		for (int i = 0; i + 1 < more.length; i += 2) {
			form.put(more[i], more[i + 1]);
		}
		return form;
	}

	/**
	 * The dashboard's own token, from its cookie: pages without forms do not repeat it.
	 */
	private String cookieToken() {
		return this.cookies.getCookieStore()
			.getCookies()
			.stream()
			.filter((cookie) -> cookie.getName().equals(ActionGuard.COOKIE))
			.findFirst()
			.orElseThrow()
			.getValue();
	}

	private static String match(Pattern pattern, String html) {
		Matcher matcher = pattern.matcher(html);
		assertThat(matcher.find()).as("%s in the page", pattern).isTrue();
		return matcher.group(1);
	}

	/** The count the overview shows for a topic in a state. */
	private static String cell(String html, String topic, String state) {
		return match(Pattern.compile(
				"<tr data-topic=\"" + Pattern.quote(topic) + "\">.*?data-state=\"" + state + "\"><a[^>]*>([^<]*)</a>",
				Pattern.DOTALL), html);
	}

	/** The instances table's rows by instance id (as escaped in the page). */
	private static Map<String, String> instanceRows(String html) {
		Matcher matcher = Pattern.compile("<tr data-instance=\"([^\"]+)\">(.*?)</tr>", Pattern.DOTALL).matcher(html);
		Map<String, String> rows = new LinkedHashMap<>();
		while (matcher.find()) {
			rows.put(matcher.group(1), matcher.group(2));
		}
		return rows;
	}

	/** The ids of the job table's rows, in order. */
	private static List<String> rows(String html) {
		Matcher matcher = Pattern.compile("<tr data-id=\"([^\"]+)\"").matcher(html);
		List<String> ids = new ArrayList<>();
		while (matcher.find()) {
			ids.add(matcher.group(1));
		}
		return ids;
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class App {

	}

	/**
	 * An application signed in by neither Spring Security nor the container: a filter of
	 * its own signs in every request as "operator" (or the user in {@code X-Test-User})
	 * with the role REDEQ_ADMIN.
	 */
	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class OperatorApp {

		@Bean
		Filter signIn() {
			return (request, response, chain) -> {
				HttpServletRequest http = (HttpServletRequest) request;
				String header = http.getHeader("X-Test-User");
				String user = (header != null) ? header : "operator";
				chain.doFilter(new HttpServletRequestWrapper(http) {

					@Override
					public Principal getUserPrincipal() {
						return () -> user;
					}

					@Override
					public String getRemoteUser() {
						return user;
					}

					@Override
					public boolean isUserInRole(String role) {
						return "REDEQ_ADMIN".equals(role);
					}

				}, response);
			};
		}

	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@EnableWebSecurity
	static class SecuredApp {

		@Bean
		SecurityFilterChain security(HttpSecurity http) throws Exception {
			http.authorizeHttpRequests((requests) -> requests.anyRequest().authenticated())
				.httpBasic(Customizer.withDefaults());
			return http.build();
		}

		@Bean
		UserDetailsService users() {
			return new InMemoryUserDetailsManager(
					User.withUsername("viewer").password("{noop}v").roles("VIEWER").build(),
					User.withUsername("ops").password("{noop}o").roles("QUEUE_OPS").build());
		}

	}

}
