package io.redeq;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

import io.lettuce.core.cluster.RedisClusterClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.redeq.internal.EngineAccess;
import io.redeq.test.ClusterClients;
import io.redeq.test.RedisCluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The admin's job pages and the shared history on a real Redis Cluster: the list script
 * runs in each bucket's slot, the pages merge replies from every master, and the
 * history's keys of many slots are written and read through one pipeline.
 */
class AdminJobsClusterIntegrationTests {

	private static ClusterClients clients;

	private static RedisClusterClient client;

	@BeforeAll
	static void startCluster() {
		clients = new ClusterClients(new RedisCluster().start());
		client = clients.createWithoutRefresh();
	}

	@AfterAll
	static void stopCluster() {
		if (clients != null) {
			clients.close();
		}
	}

	@Test
	void pagesJobsOverEveryMasterAndKeepsTheHistory() {
		try (Redeq redeq = Redeq.builder(client).prefix("pages").buckets(16).build()) {
			Instant base = Instant.now().plus(Duration.ofHours(1));
			List<Job> jobs = new ArrayList<>();
			for (int i = 29; i >= 0; i--) {
				jobs.add(Job.builder("mail").id("m-" + i).payload("mail " + i).dueAt(base.plusSeconds(i)).build());
				jobs.add(Job.builder("other").id("o-" + i).payload("other " + i).dueAt(base.plusSeconds(i)).build());
			}
			redeq.client().scheduleAll(jobs);
			redeq.subscribe("flaky", String.class, (text, delivery) -> {
				throw new IllegalStateException("no");
			}, SubscriptionOptions.builder().maxAttempts(1).build());
			redeq.client().schedule(Job.builder("flaky").id("f-1").payload("x").build());
			await().atMost(Duration.ofSeconds(30)).until(() -> redeq.admin().stats("flaky").dead() == 1);

			assertThat(redeq.admin().jobs("mail", JobState.DELAYED, 5, 10)).extracting(JobView::id)
				.containsExactlyElementsOf(IntStream.range(5, 15).mapToObj((i) -> "m-" + i).toList());
			assertThat(redeq.admin().jobs("flaky", JobState.DEAD, 0, 10)).singleElement()
				.satisfies((job) -> assertThat(job.lastError()).contains("IllegalStateException"));
			assertThat(redeq.admin().job("mail", "m-7")).get().extracting(JobView::payload).isEqualTo("\"mail 7\"");

			EngineAccess.history(redeq).flush();
			assertThat(redeq.history().lastMinutes("mail", 5).total(HistoryKind.SCHEDULED)).isEqualTo(30);
			assertThat(redeq.history().lastHours("other", 2).total(HistoryKind.SCHEDULED)).isEqualTo(30);
		}
	}

}
