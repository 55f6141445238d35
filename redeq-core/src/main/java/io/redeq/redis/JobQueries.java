package io.redeq.redis;

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

/**
 * Reads over all buckets that change nothing: exact counts, topic names, pages of dead
 * jobs, the recorded bucket count. Each read is one pipelined command per bucket.
 */
public final class JobQueries {

	private static final String[] STATES = { "D", "R", "I", "X" };

	private final KeySpace keys;

	private final ScriptRunner scripts;

	public JobQueries(KeySpace keys, ScriptRunner scripts) {
		this.keys = keys;
		this.scripts = scripts;
	}

	private RedisClusterAsyncCommands<String, String> commands() {
		return this.scripts.connections().commands();
	}

	public TopicStats stats(String topic) {
		RedisClusterAsyncCommands<String, String> commands = commands();
		String[] fields = new String[STATES.length];
		for (int i = 0; i < STATES.length; i++) {
			fields[i] = topic + ":" + STATES[i];
		}
		List<CompletionStage<List<KeyValue<String, String>>>> replies = new ArrayList<>();
		for (int b = 0; b < this.keys.buckets(); b++) {
			replies.add(commands.hmget(this.keys.countsKey(b), fields));
		}
		long[] sums = new long[STATES.length];
		for (CompletionStage<List<KeyValue<String, String>>> reply : replies) {
			List<KeyValue<String, String>> values = this.scripts.await(reply, "stats of topic " + topic);
			for (int i = 0; i < STATES.length; i++) {
				sums[i] += values.get(i).optional().map(Long::parseLong).orElse(0L);
			}
		}
		return new TopicStats(topic, sums[0], sums[1], sums[2], sums[3]);
	}

	public Set<String> topics() {
		RedisClusterAsyncCommands<String, String> commands = commands();
		List<CompletionStage<List<String>>> replies = new ArrayList<>();
		for (int b = 0; b < this.keys.buckets(); b++) {
			replies.add(commands.hkeys(this.keys.countsKey(b)));
		}
		Set<String> topics = new TreeSet<>();
		for (CompletionStage<List<String>> reply : replies) {
			for (String field : this.scripts.await(reply, "list topics")) {
				int colon = field.lastIndexOf(':');
				if (colon > 0) {
					topics.add(field.substring(0, colon));
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
		List<CompletionStage<String>> records = new ArrayList<>();
		List<CompletionStage<String>> errors = new ArrayList<>();
		for (Entry entry : page) {
			records.add(commands.hget(this.keys.jobsKey(entry.bucket()), entry.jobKey()));
			errors.add(commands.hget(this.keys.errorsKey(entry.bucket()), entry.jobKey()));
		}
		List<DeadJob> dead = new ArrayList<>();
		for (int i = 0; i < page.size(); i++) {
			String record = this.scripts.await(records.get(i), "read dead job");
			if (record == null) {
				continue; // purged or requeued meanwhile
			}
			StoredJob job = StoredJob.parse(page.get(i).jobKey(), record);
			String error = this.scripts.await(errors.get(i), "read dead job error");
			dead.add(new DeadJob(job.topic(), job.id(), job.payload(), job.attempts(), (error != null) ? error : "",
					Instant.ofEpochMilli(page.get(i).diedAt())));
		}
		return dead;
	}

	/**
	 * The bucket count recorded for this prefix, recording {@code buckets} if there is
	 * none yet.
	 */
	public int recordOrReadBucketCount(int buckets) {
		RedisClusterAsyncCommands<String, String> commands = commands();
		String meta = this.keys.metaKey();
		this.scripts.await(commands.hsetnx(meta, "buckets", Integer.toString(buckets)), "record bucket count");
		commands.hsetnx(meta, "format", "1");
		Map<String, String> values = this.scripts.await(commands.hgetall(meta), "read bucket count");
		return Integer.parseInt(values.get("buckets"));
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
