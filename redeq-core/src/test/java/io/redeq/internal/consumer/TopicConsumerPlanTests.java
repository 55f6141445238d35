package io.redeq.internal.consumer;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link TopicConsumer#plan}: how many jobs a fetch round claims from each
 * bucket so that it takes the topic's best-scored ones.
 */
class TopicConsumerPlanTests {

	@Test
	void takesTheBestScoresAmongTheBuckets() {
		double[][] scores = { { 10, 40, 50 }, { 20, 30, 60 }, { 70 } };
		assertThat(TopicConsumer.plan(scores, 3, 4, 0)).containsExactly(2, 2, 0);
	}

	@Test
	void aHigherPriorityInTheLastBucketGoesFirst() {
		double[][] scores = { { 1000, 1005 }, { 1010 }, { 1000 - 9 * 60_000 + 9 / 16.0 } };
		assertThat(TopicConsumer.plan(scores, 2, 1, 4)).containsExactly(0, 0, 1);
	}

	@Test
	void staysWithOneBucketWithinTheSlack() {
		double[][] scores = { { 10, 11, 12, 13 }, { 12 } };
		assertThat(TopicConsumer.plan(scores, 4, 4, 4)).containsExactly(4, 0);
		assertThat(TopicConsumer.plan(scores, 4, 4, 0)).containsExactly(3, 1);
	}

	@Test
	void stopsWhereABucketReadOnlyInPartRunsOut() {
		double[][] scores = { { 10, 11 }, { 50 } };
		assertThat(TopicConsumer.plan(scores, 2, 5, 0)).containsExactly(2, 0);
	}

	@Test
	void takesWhatThereIsWhenTheBucketsHoldFewerThanWanted() {
		double[][] scores = { { 10 }, {}, { 5 } };
		assertThat(TopicConsumer.plan(scores, 3, 8, 0)).containsExactly(1, 0, 1);
	}

}
