package io.redeq.internal.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;

import io.lettuce.core.SetArgs;

import io.redeq.internal.redis.script.ScriptRunner;
import io.redeq.internal.redis.script.Scripts;

/**
 * The instances of one prefix: the heartbeat set through which each migrator counts the
 * live instances, and the description each instance keeps beside it for the admin's
 * listing. Not job state, so apart from {@link RedisJobStore}, which hands it out.
 */
public final class InstanceRegistry {

	private final KeySpace keys;

	private final ScriptRunner scripts;

	InstanceRegistry(KeySpace keys, ScriptRunner scripts) {
		this.keys = keys;
		this.scripts = scripts;
	}

	/** Announces this instance; returns how many instances are alive. */
	public long heartbeat(String instanceId, long ttlMillis, boolean leaving) {
		Long live = this.scripts.run(Scripts.HEARTBEAT, new String[] { this.keys.instancesKey() }, instanceId,
				Long.toString(ttlMillis), leaving ? "leave" : "beat");
		return live;
	}

	/**
	 * Writes this instance's description with the heartbeat's ttl. A plain {@code SET PX}
	 * of a key only this instance writes: no other state depends on it, so it needs no
	 * script; a failure only leaves the last description to expire.
	 * @param instanceId this instance
	 * @param description its description
	 * @param ttlMillis the heartbeat's ttl
	 * @return the reply, ignored but for failures
	 */
	public CompletionStage<String> describeInstance(String instanceId, String description, long ttlMillis) {
		return this.scripts.connections()
			.commands()
			.set(this.keys.instanceKey(instanceId), description, SetArgs.Builder.px(ttlMillis));
	}

	/** Removes this instance's description when it leaves. */
	public void forgetInstance(String instanceId) {
		this.scripts.await(this.scripts.connections().commands().del(this.keys.instanceKey(instanceId)),
				"remove instance description");
	}

	/**
	 * The descriptions of the instances in the heartbeat set, at most {@code limit}; one
	 * pipelined GET each, an expired one (its instance died) left out.
	 * @param limit the most instances read
	 * @return the descriptions
	 */
	public List<String> instanceDescriptions(int limit) {
		List<String> ids = this.scripts.await(
				this.scripts.connections().commands().zrange(this.keys.instancesKey(), 0, limit - 1), "list instances");
		List<CompletionStage<String>> replies = new ArrayList<>(ids.size());
		for (String id : ids) {
			replies.add(this.scripts.connections().commands().get(this.keys.instanceKey(id)));
		}
		List<String> descriptions = new ArrayList<>(ids.size());
		for (CompletionStage<String> reply : replies) {
			String description = this.scripts.await(reply, "read instance description");
			if (description != null) {
				descriptions.add(description);
			}
		}
		return descriptions;
	}

}
