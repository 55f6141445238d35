package io.redeq.internal.redis;

import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.redeq.RedeqException;
import io.redeq.internal.redis.script.ScriptRunner;
import io.redeq.internal.redis.script.Scripts;

/**
 * The scripts of the admin and of the metrics: a read-only look at a bucket, a step
 * through a topic's index, and the operator's moves (promote, requeue, purge). Each is
 * one script on one bucket's keys, as every call of {@link RedisJobStore}, which hands
 * this out; none is on the path of scheduling or consuming.
 */
public final class AdminScripts {

	private final BucketScripts bucketScripts;

	private final ScriptRunner scripts;

	/**
	 * The bucket count of the layout these calls address: the operator's moves send it,
	 * so that a bucket marked with another count refuses them instead of answering for
	 * jobs that moved away (see lib/layout.lua).
	 */
	private final String bucketCount;

	AdminScripts(BucketScripts bucketScripts, ScriptRunner scripts, int buckets) {
		this.bucketScripts = bucketScripts;
		this.scripts = scripts;
		this.bucketCount = Integer.toString(buckets);
	}

	/** A read-only look at one bucket, for metrics and health. */
	public CompletionStage<BucketInspection> inspect(int bucket) {
		return inspect(bucket, 0);
	}

	private CompletionStage<BucketInspection> inspect(int bucket, int round) {
		Set<String> topics = this.bucketScripts.knownTopics(bucket);
		CompletionStage<List<Object>> reply = this.bucketScripts.runOn(Scripts.INSPECT, bucket, topics);
		return reply.thenCompose((values) -> {
			if (!ScriptReply.asksForTopics(values)) {
				return CompletableFuture.completedFuture(BucketInspection.fromReply(values));
			}
			if (round + 1 >= BucketScripts.MAX_TOPIC_ROUNDS) {
				return CompletableFuture.failedFuture(new RedeqException("Inspecting bucket " + bucket
						+ " kept asking for more topics' keys; topics known there: " + topics));
			}
			this.bucketScripts.remember(bucket, ScriptReply.topicsAskedFor(values));
			return inspect(bucket, round + 1);
		});
	}

	/**
	 * One step through a bucket's index of a topic's jobs in one state: from rank
	 * {@code start}, looking at no more than {@code look} entries and keeping no more
	 * than {@code want}; replies with the next rank (-1 at the end), then pairs jobKey,
	 * score (see list.lua).
	 */
	CompletionStage<List<Object>> list(int bucket, String topic, char state, long start, int look, int want) {
		return this.bucketScripts.runOn(Scripts.LIST, bucket, topic, String.valueOf(state), Long.toString(start),
				Integer.toString(look), Integer.toString(want));
	}

	/** Makes a DELAYED job READY now; false if it was not DELAYED. */
	public boolean promote(int bucket, String jobKey) {
		Long promoted = this.scripts.await(
				this.bucketScripts.runOn(Scripts.PROMOTE, bucket, KeySpace.topicOf(jobKey), jobKey, this.bucketCount),
				"promote " + jobKey);
		return promoted == 1;
	}

	public long requeueDead(int bucket, String topic, String jobKey, int max) {
		Long moved = this.scripts.await(this.bucketScripts.runOn(Scripts.REQUEUE_DEAD, bucket, topic,
				Integer.toString(max), jobKey, this.bucketCount), "requeue dead jobs of " + topic);
		return moved;
	}

	public long purgeDead(int bucket, String topic, int max) {
		Long purged = this.scripts.await(
				this.bucketScripts.runOn(Scripts.PURGE_DEAD, bucket, topic, Integer.toString(max), this.bucketCount),
				"purge dead jobs of " + topic);
		return purged;
	}

	/**
	 * One step of a purge of a topic's DELAYED ({@code 'D'}) or READY ({@code 'R'}) jobs
	 * in one bucket: deletes up to {@code max} of them, looking at no more than
	 * {@code look} index entries from rank {@code start} (see purge-waiting.lua).
	 * @return the jobKeys it deleted and where the next step starts
	 */
	public PurgeStep purgeWaiting(int bucket, String topic, char state, long start, int look, int max) {
		List<Object> reply = this.scripts.await(
				this.bucketScripts.runOn(Scripts.PURGE_WAITING, bucket, topic, String.valueOf(state),
						Long.toString(start), Integer.toString(look), Integer.toString(max), this.bucketCount),
				"purge " + ((state == 'D') ? "DELAYED" : "READY") + " jobs of " + topic);
		return PurgeStep.fromReply(reply);
	}

}
