package io.redeq.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.lettuce.core.MapScanCursor;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves every job from one bucket count to another. A job crosses hash slots, so it
 * cannot move in one script: each is copied into its new bucket first and removed from
 * its old one second, both idempotent, so an interrupted reshard loses nothing and can
 * run again. Meant to run while no instance runs (the engine refuses to start on a
 * mismatched count, which enforces it).
 */
public final class Resharder {

	private static final Logger logger = LoggerFactory.getLogger(Resharder.class);

	private final KeySpace from;

	private final KeySpace to;

	private final ScriptRunner scripts;

	public Resharder(KeySpace from, KeySpace to, ScriptRunner scripts) {
		this.from = from;
		this.to = to;
		this.scripts = scripts;
	}

	/** Moves every job that belongs to another bucket now; returns how many moved. */
	public long moveAll() {
		long moved = 0;
		for (int b = 0; b < this.from.buckets(); b++) {
			moved += moveBucket(b);
		}
		for (int b = 0; b < this.from.buckets(); b++) {
			dropIfUnused(b);
		}
		logger.info("Resharded prefix '{}' from {} to {} buckets: {} jobs moved", this.from.prefix(),
				this.from.buckets(), this.to.buckets(), moved);
		return moved;
	}

	private long moveBucket(int bucket) {
		RedisClusterAsyncCommands<String, String> commands = this.scripts.connections().commands();
		long moved = 0;
		ScanCursor cursor = ScanCursor.INITIAL;
		do {
			MapScanCursor<String, String> page = this.scripts
				.await(commands.hscan(this.from.jobsKey(bucket), cursor, ScanArgs.Builder.limit(500)), "reshard scan");
			for (Map.Entry<String, String> job : page.getMap().entrySet()) {
				if (move(bucket, job.getKey(), job.getValue())) {
					moved++;
				}
			}
			cursor = page;
		}
		while (!cursor.isFinished());
		return moved;
	}

	private boolean move(int bucket, String jobKey, String record) {
		int target = this.to.bucketOf(jobKey);
		if (this.to.tag(target).equals(this.from.tag(bucket))) {
			return false; // same bucket in both layouts
		}
		RedisClusterAsyncCommands<String, String> commands = this.scripts.connections().commands();
		String error = this.scripts.await(commands.hget(this.from.errorsKey(bucket), jobKey), "reshard read");
		Double diedAt = this.scripts.await(commands.zscore(this.from.bucketKeys(bucket)[4], jobKey), "reshard read");
		this.scripts.run(Scripts.RESHARD_IMPORT, this.to.bucketKeys(target), this.to.tag(target), jobKey, record,
				(error != null) ? error : "", Long.toString((diedAt != null) ? diedAt.longValue() : 0));
		this.scripts.run(Scripts.RESHARD_REMOVE, this.from.bucketKeys(bucket), this.from.tag(bucket), jobKey, record);
		return true;
	}

	/**
	 * Deletes an old bucket's keys when the new layout does not use its tag (they are
	 * empty now).
	 */
	private void dropIfUnused(int bucket) {
		String tag = this.from.tag(bucket);
		for (int b = 0; b < this.to.buckets(); b++) {
			if (this.to.tag(b).equals(tag)) {
				return;
			}
		}
		RedisClusterAsyncCommands<String, String> commands = this.scripts.connections().commands();
		Set<String> topics = new java.util.TreeSet<>();
		for (String field : this.scripts.await(commands.hkeys(this.from.countsKey(bucket)), "reshard topics")) {
			topics.add(field.substring(0, field.lastIndexOf(':')));
		}
		List<String> keys = new ArrayList<>(List.of(this.from.bucketKeys(bucket)));
		for (String topic : topics) {
			keys.add(this.from.readyKey(bucket, topic));
			keys.add(this.from.deadKey(bucket, topic));
		}
		// One DEL per key: they share a slot, but a cluster client routes multi-key DEL
		// per slot anyway.
		for (String key : keys) {
			this.scripts.await(commands.del(key), "reshard cleanup");
		}
	}

}
