package io.redeq.internal.redis;

import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

import io.redeq.RedeqException;
import io.redeq.internal.redis.script.LuaScript;
import io.redeq.internal.redis.script.ScriptRunner;
import io.redeq.internal.redis.script.Scripts;

/**
 * Sends the scripts of one bucket with the keys they declare: the keys of the topics a
 * script touches, the bucket's requests key for a request that may come twice, and for
 * migrate the bucket's recurring hash. A script that may meet jobs of any topic is sent
 * with the topics this instance has seen in the bucket, and again with more when it names
 * topics it met undeclared. {@link RedisJobStore} says what each script is for; this
 * class only how it is sent.
 */
final class BucketScripts {

	/** Bounds the rounds in which a script asks for the keys of more topics. */
	static final int MAX_TOPIC_ROUNDS = 4;

	/** The least time a bucket remembers a request that may come twice. */
	private static final long MIN_REQUEST_MEMORY_MILLIS = 1000;

	private final KeySpace keys;

	private final ScriptRunner scripts;

	/**
	 * Topics seen per bucket: a script that may meet jobs of any topic (migrate, inspect)
	 * is sent with their keys declared; when it meets another topic it names it, before
	 * writing anything, and is sent again.
	 */
	private final Map<Integer, Set<String>> topicsByBucket = new ConcurrentHashMap<>();

	BucketScripts(KeySpace keys, ScriptRunner scripts) {
		this.keys = keys;
		this.scripts = scripts;
	}

	<T> CompletableFuture<T> runOn(LuaScript script, int bucket, Collection<String> topics, String... rest) {
		String[] args = new String[rest.length + 1];
		args[0] = String.join(",", topics);
		System.arraycopy(rest, 0, args, 1, rest.length);
		remember(bucket, topics);
		return this.scripts.runAsync(script, this.keys.jobScriptKeys(bucket, topics), args);
	}

	/**
	 * Runs migrate: the keys of {@link #runOn}, then the bucket's recurring hash, whose
	 * due triggers it turns into occurrences, and its requests key, where it remembers
	 * the claim tokens of the jobs it hands over.
	 */
	<T> CompletableFuture<T> runMigrate(int bucket, Collection<String> topics, String... rest) {
		String[] args = new String[rest.length + 1];
		args[0] = String.join(",", topics);
		System.arraycopy(rest, 0, args, 1, rest.length);
		remember(bucket, topics);
		String[] topicKeys = this.keys.jobScriptKeys(bucket, topics);
		String[] keys = Arrays.copyOf(topicKeys, topicKeys.length + 2);
		keys[topicKeys.length] = this.keys.recurringKey(bucket);
		keys[topicKeys.length + 1] = this.keys.requestsKey(bucket);
		return this.scripts.runAsync(Scripts.MIGRATE, keys, args);
	}

	<T> CompletableFuture<T> runOn(LuaScript script, int bucket, String topic, String... rest) {
		return runOn(script, bucket, List.of(topic), rest);
	}

	/** The topics whose keys scripts on this bucket declare until one finds more. */
	Set<String> knownTopics(int bucket) {
		return new LinkedHashSet<>(this.topicsByBucket.computeIfAbsent(bucket, (b) -> ConcurrentHashMap.newKeySet()));
	}

	/**
	 * Runs a script that remembers its request in the bucket's requests key, declared
	 * after the topic's keys, and gets as its last argument how long to remember it.
	 * Lettuce sends a command again after reconnecting only while its caller still waits
	 * (a timed-out command is cancelled, and a cancelled one is never sent), so twice the
	 * command timeout covers every second run, with room for a Redis clock that runs a
	 * little fast.
	 */
	<T> CompletableFuture<T> runRemembered(LuaScript script, int bucket, String topic, String... rest) {
		return runRemembered(script, bucket, topic, rest, new String[0]);
	}

	/** As above, with {@code after} following the time to remember the request. */
	<T> CompletableFuture<T> runRemembered(LuaScript script, int bucket, String topic, String[] rest, String[] after) {
		String[] args = new String[rest.length + 2 + after.length];
		args[0] = topic;
		System.arraycopy(rest, 0, args, 1, rest.length);
		args[rest.length + 1] = Long.toString(requestMemoryMillis());
		System.arraycopy(after, 0, args, rest.length + 2, after.length);
		String[] topicKeys = this.keys.jobScriptKeys(bucket, List.of(topic));
		String[] keys = Arrays.copyOf(topicKeys, topicKeys.length + 1);
		keys[topicKeys.length] = this.keys.requestsKey(bucket);
		remember(bucket, List.of(topic));
		return this.scripts.runAsync(script, keys, args);
	}

	long requestMemoryMillis() {
		return Math.max(2 * this.scripts.timeout().toMillis(), MIN_REQUEST_MEMORY_MILLIS);
	}

	void remember(int bucket, Collection<String> topics) {
		Set<String> known = this.topicsByBucket.computeIfAbsent(bucket, (b) -> ConcurrentHashMap.newKeySet());
		known.addAll(topics);
	}

	/**
	 * Runs migrate, which may meet jobs of topics not declared yet: when it answers
	 * {@code topics, t1, t2, ...} (having written nothing), it is sent again with them.
	 */
	List<Object> runMigrateWithAllTopics(int bucket, String... rest) {
		LuaScript script = Scripts.MIGRATE;
		for (int round = 0; round < MAX_TOPIC_ROUNDS; round++) {
			Set<String> topics = knownTopics(bucket);
			List<Object> reply = this.scripts.await(runMigrate(bucket, topics, rest), script.toString());
			if (!ScriptReply.asksForTopics(reply)) {
				return reply;
			}
			remember(bucket, ScriptReply.topicsAskedFor(reply));
		}
		throw new RedeqException(
				"Script " + script + " on bucket " + bucket + " kept asking for more topics' keys after "
						+ MAX_TOPIC_ROUNDS + " rounds; topics known there: " + this.topicsByBucket.get(bucket));
	}

	static String[] strings(Object... values) {
		String[] out = new String[values.length];
		for (int i = 0; i < values.length; i++) {
			out[i] = String.valueOf(values[i]);
		}
		return out;
	}

}
