package io.redeq.example;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.security.Principal;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import io.redeq.Job;
import io.redeq.JobState;
import io.redeq.JobView;
import io.redeq.Redeq;
import io.redeq.RedeqAdmin;
import io.redeq.internal.EngineAccess;
import io.redeq.spring.internal.listener.RedeqListenerEndpointRegistry;
import io.redeq.test.ChromiumBinaries;
import io.redeq.test.RedisServer;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The dashboard in a real browser (headless Chromium through its chromedriver, where
 * {@link ChromiumBinaries} finds them: Debian's packages or, on macOS, Homebrew's),
 * against the example application on a random port with its own redis-server: the pages
 * show the numbers Redis holds, and requeueing a dead reminder from the dead-letter page
 * shows it READY. Screenshots go to {@code target/dashboard-screenshots/}. The example
 * signs nobody in, so a filter of the test's signs the browser in as an operator with the
 * dashboard's action role.
 */
@RedisTest
class DashboardBrowserIntegrationTests {

	private static final Path SCREENSHOTS = Paths.get("target", "dashboard-screenshots");

	private final RedisServer redis;

	private final HttpClient http = HttpClient.newHttpClient();

	private ConfigurableApplicationContext app;

	private String base;

	private Path profile;

	private WebDriver browser;

	DashboardBrowserIntegrationTests(RedisServer redis) {
		this.redis = redis;
	}

	@BeforeEach
	void start() throws IOException {
		// Both fail with the command that installs them when they are missing.
		Path chromium = ChromiumBinaries.requireBrowser();
		Path chromedriver = ChromiumBinaries.requireDriver();
		this.app = new SpringApplicationBuilder(ExampleApplication.class, SignedInOperator.class).run("--server.port=0",
				"--spring.data.redis.host=" + this.redis.host(), "--spring.data.redis.port=" + this.redis.port(),
				"--redeq.example.embedded-redis=never", "--redeq.dashboard.enabled=true",
				"--example.order.payment-timeout=30m", "--example.reminder.failure-rate=1.0",
				"--example.reminder.max-attempts=2", "--redeq.consumer.backoff.initial=100ms",
				"--redeq.consumer.backoff.jitter=0");
		this.base = "http://localhost:" + this.app.getEnvironment().getProperty("local.server.port");
		this.profile = Files.createTempDirectory("redeq-chromium-");
		ChromeOptions options = new ChromeOptions();
		// Both paths explicit: Selenium Manager then never looks for, or
		// downloads, a browser.
		options.setBinary(chromium.toFile());
		options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
				"--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
				"--user-data-dir=" + this.profile.toAbsolutePath());
		ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(chromedriver.toFile())
			.usingAnyFreePort()
			.build();
		this.browser = new ChromeDriver(service, options);
		this.browser.manage().window().setSize(new Dimension(1360, 1000));
		this.browser.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(60));
		Files.createDirectories(SCREENSHOTS);
	}

	@AfterEach
	void stop() throws IOException {
		if (this.browser != null) {
			this.browser.quit();
		}
		if (this.app != null) {
			this.app.close();
		}
		if (this.profile != null) {
			try (Stream<Path> files = Files.walk(this.profile)) {
				files.sorted(Comparator.reverseOrder()).forEach((file) -> file.toFile().delete());
			}
		}
	}

	@Test
	void showsTheQueuesAndRequeuesADeadReminder() throws Exception {
		Redeq redeq = this.app.getBean(Redeq.class);
		RedeqAdmin admin = redeq.admin();
		redeq.subscribe("invoice.send", String.class, (invoice, delivery) -> {
		});
		for (int i = 0; i < 40; i++) {
			redeq.client()
				.schedule(
						Job.builder("invoice.send").payload("invoice " + i).delay(Duration.ofMillis(i * 50L)).build());
		}
		for (int i = 0; i < 5; i++) {
			redeq.client()
				.schedule(Job.builder("invoice.send")
					.id("later-" + i)
					.payload("invoice later " + i)
					.delay(Duration.ofHours(2 + i))
					.build());
		}
		for (String item : List.of("book", "lamp", "chair")) {
			post("/orders", "{\"item\":\"" + item + "\"}");
		}
		post("/reminders", "{\"to\":\"ada\",\"text\":\"standup\",\"in\":\"0s\"}");
		post("/reminders", "{\"to\":\"grace\",\"text\":\"review\",\"in\":\"0s\"}");
		await().atMost(Duration.ofSeconds(30)).until(() -> admin.stats("reminder").dead() == 2);
		await().atMost(Duration.ofSeconds(30)).until(() -> admin.stats("invoice.send").pending() == 5);
		// A requeued reminder must stay READY long enough to be seen: no
		// listener runs it.
		this.app.getBean(RedeqListenerEndpointRegistry.class).stop();
		EngineAccess.history(redeq).flush();

		this.browser.get(this.base + "/redeq");
		assertThat(this.browser.getTitle()).isEqualTo("Overview · redeq");
		assertThat(count("reminder", "DEAD")).isEqualTo("2");
		assertThat(count("order.timeout", "DELAYED")).isEqualTo("3");
		assertThat(count("invoice.send", "DELAYED")).isEqualTo("5");
		assertThat(count("invoice.send", "READY")).isEqualTo("0");
		assertThat(this.browser.findElement(By.cssSelector("#card-dead b")).getText()).isEqualTo("2");
		assertThat(this.browser.findElement(By.id("redis-status")).getText()).isEqualTo("Redis up");
		screenshot("overview");

		this.browser.findElement(By.linkText("invoice.send")).click();
		assertThat(this.browser.findElement(By.id("topic-name")).getText()).isEqualTo("invoice.send");
		assertThat(this.browser.findElement(By.cssSelector("#chart-hour .legend.completed")).getAttribute("data-total"))
			.isEqualTo("40");
		assertThat(this.browser.findElements(By.cssSelector("#jobs tbody tr[data-id]"))).extracting(WebElement::getText)
			.hasSize(5)
			.allSatisfy((row) -> assertThat(row).startsWith("later-"));
		screenshot("topic");

		this.browser.findElement(By.id("nav-dead")).click();
		List<WebElement> dead = this.browser.findElements(By.cssSelector("section[data-topic='reminder'] tr[data-id]"));
		assertThat(dead).hasSize(2);
		String id = dead.get(0).getAttribute("data-id");
		assertThat(dead.get(0).getText()).contains("mail server did not answer");
		screenshot("dead-letters");

		this.browser
			.findElement(By
				.cssSelector("section[data-topic='reminder'] tr[data-id='" + id + "'] button[data-action='requeue']"))
			.click();
		// The click posts a form and the browser follows the redirect: wait for
		// the new page.
		WebElement flash = new WebDriverWait(this.browser, Duration.ofSeconds(20))
			.until((driver) -> driver.findElements(By.id("flash")).stream().findFirst().orElse(null));
		assertThat(flash.getText()).isEqualTo("Requeued dead job " + id + ": it is ready now");
		assertThat(this.browser.findElements(By.cssSelector("section[data-topic='reminder'] tr[data-id]")))
			.extracting((row) -> row.getAttribute("data-id"))
			.hasSize(1)
			.doesNotContain(id);
		assertThat(admin.job("reminder", id)).get().extracting(JobView::state).isEqualTo(JobState.READY);

		this.browser.get(this.base + "/redeq/topics/reminder?state=READY");
		assertThat(this.browser.findElements(By.cssSelector("#jobs tbody tr[data-id]")))
			.extracting((row) -> row.getAttribute("data-id"))
			.containsExactly(id);
		assertThat(this.browser.findElement(By.cssSelector("#state-tabs a[data-state='READY'] b")).getText())
			.isEqualTo("1");
		assertThat(this.browser.findElement(By.cssSelector("#state-tabs a[data-state='DEAD'] b")).getText())
			.isEqualTo("1");
		screenshot("requeued");
	}

	/** The count the overview shows for a topic in a state. */
	private String count(String topic, String state) {
		return this.browser
			.findElement(By.cssSelector("tr[data-topic='" + topic + "'] td[data-state='" + state + "'] a"))
			.getText();
	}

	private void screenshot(String name) throws IOException {
		Path shot = ((TakesScreenshot) this.browser).getScreenshotAs(OutputType.FILE).toPath();
		Files.copy(shot, SCREENSHOTS.resolve(name + ".png"), StandardCopyOption.REPLACE_EXISTING);
	}

	private void post(String path, String json) throws Exception {
		HttpRequest request = HttpRequest.newBuilder(URI.create(this.base + path))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(json))
			.build();
		HttpResponse<String> response = this.http.send(request, HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).as(path + ": " + response.body()).isBetween(200, 299);
	}

	/**
	 * Signs every request in as "operator" with the role REDEQ_ADMIN, as any servlet
	 * security would (not a {@code @Configuration}: the example's scan must not find it).
	 */
	static class SignedInOperator {

		@Bean
		Filter signIn() {
			return (request, response, chain) -> chain
				.doFilter(new HttpServletRequestWrapper((HttpServletRequest) request) {

					@Override
					public Principal getUserPrincipal() {
						return () -> "operator";
					}

					@Override
					public boolean isUserInRole(String role) {
						return "REDEQ_ADMIN".equals(role);
					}

				}, response);
		}

	}

}
