package io.redeq.redis;

import io.redeq.Duplicate;

/**
 * One job to write with the schedule script.
 *
 * @param jobKey {@code topic:id}
 * @param payload JSON text
 * @param absolute {@code true} if {@code millis} is an epoch instant, {@code false} if it
 * is a delay from the Redis server's now
 * @param millis the instant or the delay
 * @param onDuplicate the duplicate policy
 */
public record ScheduleRequest(String jobKey, String payload, boolean absolute, long millis, Duplicate onDuplicate) {

	String policyCode() {
		return switch (this.onDuplicate) {
			case REPLACE -> "R";
			case KEEP -> "K";
			case REJECT -> "J";
		};
	}

}
