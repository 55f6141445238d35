package io.redeq.internal.redis;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletionStage;

import io.lettuce.core.KeyValue;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import io.redeq.DeadJob;
import io.redeq.TopicStats;
import io.redeq.internal.redis.script.ScriptRunner;

/**
 * Reads over all buckets that change nothing: exact counts, topic names, pages of dead
 * jobs, the recorded bucket count. Each read is one pipelined command per bucket.
 */
public final class JobQueries {

	/**
	 * The meta hash's field that names the bucket count a change moves to while the
	 * change has not finished.
	 */
	private static final String CHANGING_TO_FIELD = "buckets-changing-to";

	/**
	 * The meta hash's field that counts the changes of the bucket layout ever begun: the
	 * layout's generation, 0 (absent) until the first change.
	 */
	private static final String GENERATION_FIELD = "layout-generation";

	private final KeySpace keys;

	private final ScriptRunner scripts;

	public JobQueries(KeySpace keys, ScriptRunner scripts) {
		this.keys = keys;
		this.scripts = scripts;
	}

	private RedisClusterAsyncCommands<String, String> commands() {
		return this.scripts.connections().commands();
	}

	/**
	 * Exact counts over all buckets: per bucket the topic's pending counter, the sizes of
	 * its ready and dead sets and the lease set (IN_FLIGHT jobs of all topics, at most
	 * what the consumers' slots hold), all pipelined.
	 */
	public TopicStats stats(String topic) {
		RedisClusterAsyncCommands<String, String> commands = commands();
		record BucketReads(CompletionStage<String> pending, CompletionStage<List<String>> leased,
				CompletionStage<Long> ready, CompletionStage<Long> dead) {
		}
		List<BucketReads> reads = new ArrayList<>();
		for (int b = 0; b < this.keys.buckets(); b++) {
			reads.add(new BucketReads(commands.hget(this.keys.countKey(b), topic),
					commands.zrange(this.keys.leaseKey(b), 0, -1), commands.zcard(this.keys.readyKey(b, topic)),
					commands.zcard(this.keys.deadKey(b, topic))));
		}
		long delayed = 0;
		long ready = 0;
		long inFlight = 0;
		long dead = 0;
		String what = "stats of topic " + topic;
		String prefix = topic + ":";
		for (BucketReads read : reads) {
			String counted = this.scripts.await(read.pending(), what);
			long pending = (counted != null) ? Long.parseLong(counted) : 0L;
			long running = this.scripts.await(read.leased(), what)
				.stream()
				.filter((key) -> key.startsWith(prefix))
				.count();
			long readyHere = this.scripts.await(read.ready(), what);
			delayed += pending - readyHere - running;
			ready += readyHere;
			inFlight += running;
			dead += this.scripts.await(read.dead(), what);
		}
		return new TopicStats(topic, delayed, ready, inFlight, dead);
	}

	/** Topics that have, or had, jobs: the fields of every bucket's count hash. */
	public Set<String> topics() {
		RedisClusterAsyncCommands<String, String> commands = commands();
		List<CompletionStage<List<String>>> replies = new ArrayList<>();
		for (int b = 0; b < this.keys.buckets(); b++) {
			replies.add(commands.hkeys(this.keys.countKey(b)));
		}
		Set<String> topics = new TreeSet<>();
		for (CompletionStage<List<String>> reply : replies) {
			for (String field : this.scripts.await(reply, "list topics")) {
				if (field.indexOf(':') < 0 && !field.startsWith("~")) {
					topics.add(field);
				}
			}
		}
		return topics;
	}

	/** The most recent dead jobs first, merged over all buckets. */
	public List<DeadJob> deadJobs(String topic, int offset, int limit) {
		RedisClusterAsyncCommands<String, String> commands = commands();
		List<CompletionStage<List<ScoredValue<String>>>> replies = new ArrayList<>();
		for (int b = 0; b < this.keys.buckets(); b++) {
			replies.add(commands.zrevrangeWithScores(this.keys.deadKey(b, topic), 0, offset + limit - 1));
		}
		record Entry(int bucket, String jobKey, long diedAt) {
		}
		List<Entry> entries = new ArrayList<>();
		for (int b = 0; b < replies.size(); b++) {
			for (ScoredValue<String> value : this.scripts.await(replies.get(b), "list dead jobs of " + topic)) {
				entries.add(new Entry(b, value.getValue(), (long) value.getScore()));
			}
		}
		entries.sort(Comparator.comparingLong(Entry::diedAt).reversed().thenComparing(Entry::jobKey));
		List<Entry> page = entries.subList(Math.min(offset, entries.size()), Math.min(offset + limit, entries.size()));
		record JobReads(CompletionStage<String> payload, CompletionStage<String> attempt,
				CompletionStage<String> error) {
		}
		List<JobReads> reads = new ArrayList<>();
		for (Entry entry : page) {
			reads.add(new JobReads(commands.hget(this.keys.payloadKey(entry.bucket()), entry.jobKey()),
					commands.hget(this.keys.payloadKey(entry.bucket()), KeySpace.attemptField(entry.jobKey())),
					commands.hget(this.keys.errorKey(entry.bucket()), entry.jobKey())));
		}
		List<DeadJob> dead = new ArrayList<>();
		for (int i = 0; i < page.size(); i++) {
			String payload = this.scripts.await(reads.get(i).payload(), "read dead job");
			if (payload == null) {
				continue; // purged or requeued meanwhile
			}
			String attempt = this.scripts.await(reads.get(i).attempt(), "read dead job");
			String error = this.scripts.await(reads.get(i).error(), "read dead job error");
			String jobKey = page.get(i).jobKey();
			dead.add(new DeadJob(topic, jobKey.substring(topic.length() + 1), payloadOf(payload), attemptsOf(attempt),
					(error != null) ? error : "", Instant.ofEpochMilli(page.get(i).diedAt())));
		}
		return dead;
	}

	/** The payload part of a payload record ({@code <created>|<payload>}). */
	static String payloadOf(String record) {
		return record.substring(record.indexOf('|') + 1);
	}

	/** The attempts part of an attempt record ({@code <attempts>|...}), 0 if none. */
	static int attemptsOf(String record) {
		return (record != null) ? Integer.parseInt(record.substring(0, record.indexOf('|'))) : 0;
	}

	/**
	 * The bucket count recorded for this prefix, recording {@code buckets} if there is
	 * none yet.
	 */
	public int recordOrReadBucketCount(int buckets) {
		RedisClusterAsyncCommands<String, String> commands = commands();
		String meta = this.keys.metaKey();
		this.scripts.await(commands.hsetnx(meta, "buckets", Integer.toString(buckets)), "record bucket count");
		Map<String, String> values = this.scripts.await(commands.hgetall(meta), "read bucket count");
		return Integer.parseInt(values.get("buckets"));
	}

	/**
	 * The bucket count recorded for this prefix and the count an unfinished change of it
	 * moves to, without writing anything.
	 * @return the recorded count (0 if none yet) and the count of an unfinished change (0
	 * if none)
	 */
	public int[] readBucketLayout() {
		BucketLayout layout = readLayout();
		return new int[] { layout.buckets(), layout.changingTo() };
	}

	/**
	 * The bucket layout recorded for this prefix, with one read of its meta hash and
	 * without writing anything.
	 * @return the layout
	 */
	public BucketLayout readLayout() {
		List<KeyValue<String, String>> values = this.scripts.await(
				commands().hmget(this.keys.metaKey(), "buckets", CHANGING_TO_FIELD, GENERATION_FIELD),
				"read bucket count");
		return new BucketLayout(values.get(0).map(Integer::parseInt).getValueOrElse(0),
				values.get(1).map(Integer::parseInt).getValueOrElse(0),
				values.get(2).map(Long::parseLong).getValueOrElse(0L));
	}

	/**
	 * Records that a change of the bucket count to {@code buckets} has begun, and counts
	 * it in the layout's generation, so that an instance that compares the generation it
	 * saw last learns of every change, even one that came back to its count.
	 */
	void recordChangeBegun(int buckets) {
		recordChangingTo(buckets);
		this.scripts.await(commands().hincrby(this.keys.metaKey(), GENERATION_FIELD, 1), "record bucket count change");
	}

	/**
	 * Records that a change of the bucket count to {@code buckets} has begun, or, with 0,
	 * that it has finished.
	 */
	void recordChangingTo(int buckets) {
		if (buckets > 0) {
			this.scripts.await(commands().hset(this.keys.metaKey(), CHANGING_TO_FIELD, Integer.toString(buckets)),
					"record bucket count change");
		}
		else {
			this.scripts.await(commands().hdel(this.keys.metaKey(), CHANGING_TO_FIELD), "record bucket count change");
		}
	}

	/**
	 * Overwrites the recorded bucket count; only the reshard does this, after moving
	 * every job.
	 */
	public void recordBucketCount(int buckets) {
		this.scripts.await(commands().hset(this.keys.metaKey(), "buckets", Integer.toString(buckets)),
				"record bucket count");
	}

}
