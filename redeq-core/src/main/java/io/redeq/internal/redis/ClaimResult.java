package io.redeq.internal.redis;

import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The jobs one claim took, with the Redis time it ran at and how many READY jobs of the
 * topic its bucket still holds.
 *
 * @param now Redis time, epoch ms
 * @param remaining READY jobs of the topic left in this bucket
 * @param jobs the claimed jobs
 */
public record ClaimResult(long now, long remaining, List<ClaimedJob> jobs) {

	/** Values claim.lua returns per claimed job. */
	private static final int VALUES_PER_JOB = 7;

	/**
	 * Parses claim.lua's reply to a claim of {@code topic} in {@code bucket} under
	 * {@code token}: now, READY jobs left in this bucket, then per claimed job 6 values:
	 * jobKey, attempt, created time (see {@link CreatedTime}), due ms, payload, the job's
	 * own settings, stored trace context ('' none).
	 */
	static ClaimResult fromReply(List<Object> reply, int bucket, String topic, String token) {
		return new ClaimResult(ScriptReply.number(reply.get(0)), ScriptReply.number(reply.get(1)),
				jobsOf(reply.subList(2, reply.size()), bucket, topic, token));
	}

	/**
	 * The jobs in {@code values}, 7 values each as lib/delivery.lua writes them (claim's
	 * reply and migrate's hand-off share the shape).
	 */
	static List<ClaimedJob> jobsOf(List<Object> values, int bucket, String topic, String token) {
		List<ClaimedJob> jobs = new ArrayList<>();
		for (int i = 0; i + VALUES_PER_JOB - 1 < values.size(); i += VALUES_PER_JOB) {
			String jobKey = ScriptReply.text(values.get(i));
			jobs.add(new ClaimedJob(bucket, jobKey, topic, jobKey.substring(topic.length() + 1),
					(int) ScriptReply.number(values.get(i + 1)), CreatedTime.of(values.get(i + 2)),
					ScriptReply.number(values.get(i + 3)), ScriptReply.text(values.get(i + 4)), token,
					JobSettings.decode(ScriptReply.text(values.get(i + 5))),
					traceContextOf(ScriptReply.text(values.get(i + 6)))));
		}
		return jobs;
	}

	private static @Nullable String traceContextOf(String stored) {
		return stored.isEmpty() ? null : stored;
	}

}
