package io.redeq.internal.redis;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.stream.Collectors;

import io.lettuce.core.KeyValue;

import io.redeq.internal.redis.script.ScriptRunner;
import io.redeq.internal.redis.script.Scripts;

/**
 * Recurring jobs in Redis (see {@code lib/recurring.lua}): declare, cancel and refill,
 * each one script on the bucket of the recurring job's jobKey, and the reads behind
 * listing them. Turning a due trigger into an occurrence is migrate's part.
 */
public final class RecurringStore {

	private final KeySpace keys;

	private final ScriptRunner scripts;

	public RecurringStore(KeySpace keys, ScriptRunner scripts) {
		this.keys = keys;
		this.scripts = scripts;
	}

	public KeySpace keys() {
		return this.keys;
	}

	/** The Redis server's time, epoch ms: cron ticks are planned from it. */
	public long redisTime() {
		List<String> time = this.scripts.await(this.scripts.connections().commands().time(), "read the Redis time");
		return Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
	}

	/**
	 * Declares a recurring job (see recurring-declare.lua).
	 * @param ticks cron ticks after {@link #redisTime()}; empty for a period
	 */
	public Declared declare(int bucket, String jobKey, String signature, String missed, String payload,
			List<Long> ticks) {
		String topic = KeySpace.topicOf(jobKey);
		List<Object> reply = this.scripts.await(
				this.scripts.runAsync(Scripts.RECURRING_DECLARE, keysOf(bucket, List.of(topic)), topic, jobKey,
						signature, missed, payload, join(ticks), Integer.toString(this.keys.buckets())),
				"declare recurring " + jobKey);
		return new Declared(ScriptReply.text(reply.get(0)), ScriptReply.number(reply.get(1)),
				ScriptReply.isOne(reply.get(2)));
	}

	/** Removes a recurring job; {@code false} if it was not declared. */
	public boolean cancel(int bucket, String jobKey) {
		Long removed = this.scripts.await(
				this.scripts.runAsync(Scripts.RECURRING_CANCEL, keysOf(bucket, List.of()), "", jobKey),
				"cancel recurring " + jobKey);
		return removed == 1;
	}

	/**
	 * Appends cron ticks to a plan that still ends at {@code tail} (see
	 * recurring-refill.lua); returns the trigger's new score when it moved, 0 when the
	 * plan grew, -1 when nothing changed.
	 */
	public long refill(int bucket, String jobKey, String signature, long tail, List<Long> ticks) {
		Long reply = this.scripts.await(this.scripts.runAsync(Scripts.RECURRING_REFILL, keysOf(bucket, List.of()), "",
				jobKey, signature, Long.toString(tail), join(ticks)), "refill recurring " + jobKey);
		return reply;
	}

	/** The stored definition and plan of one recurring job (either may be null). */
	public String[] definitionAndPlan(int bucket, String jobKey) {
		List<KeyValue<String, String>> values = this.scripts.await(
				this.scripts.connections().commands().hmget(this.keys.recurringKey(bucket), jobKey, "~p:" + jobKey),
				"read recurring " + jobKey);
		return new String[] { values.get(0).getValueOrElse(null), values.get(1).getValueOrElse(null) };
	}

	/**
	 * Every field of every bucket's recurring hash (definitions and plans): one HGETALL
	 * per bucket, all sent before the first reply is awaited.
	 */
	public List<Map<String, String>> allBuckets() {
		List<CompletionStage<Map<String, String>>> replies = new ArrayList<>(this.keys.buckets());
		for (int b = 0; b < this.keys.buckets(); b++) {
			replies.add(this.scripts.connections().commands().hgetall(this.keys.recurringKey(b)));
		}
		List<Map<String, String>> all = new ArrayList<>(replies.size());
		for (CompletionStage<Map<String, String>> reply : replies) {
			all.add(this.scripts.await(reply, "list recurring jobs"));
		}
		return all;
	}

	private String[] keysOf(int bucket, Collection<String> topics) {
		String[] topicKeys = this.keys.jobScriptKeys(bucket, topics);
		String[] all = Arrays.copyOf(topicKeys, topicKeys.length + 1);
		all[topicKeys.length] = this.keys.recurringKey(bucket);
		return all;
	}

	private static String join(List<Long> ticks) {
		return ticks.stream().map(String::valueOf).collect(Collectors.joining(","));
	}

	/**
	 * What a declaration did.
	 *
	 * @param status {@code created}, {@code replaced} or {@code kept}
	 * @param nextTick the trigger's score: the next tick, epoch ms
	 * @param earliest whether the trigger became its bucket's earliest entry
	 */
	public record Declared(String status, long nextTick, boolean earliest) {

	}

}
