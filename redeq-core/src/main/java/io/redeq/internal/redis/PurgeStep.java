package io.redeq.internal.redis;

import java.util.ArrayList;
import java.util.List;

/**
 * What one step of a purge did (see {@code purge-waiting.lua}).
 *
 * @param jobKeys the jobs it deleted
 * @param next the rank the next step starts at, or -1 when the bucket's index ended
 */
public record PurgeStep(List<String> jobKeys, long next) {

	/** Whether the index has entries past this step's. */
	public boolean more() {
		return this.next >= 0;
	}

	static PurgeStep fromReply(List<Object> reply) {
		List<String> jobKeys = new ArrayList<>(reply.size() - 1);
		for (int i = 1; i < reply.size(); i++) {
			jobKeys.add(String.valueOf(reply.get(i)));
		}
		return new PurgeStep(List.copyOf(jobKeys), ScriptReply.number(reply.get(0)));
	}

}
