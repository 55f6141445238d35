package io.redeq.internal.redis;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.MapScanCursor;
import io.lettuce.core.Range;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.redeq.internal.redis.connection.RedisConnections;
import io.redeq.internal.redis.script.ScriptRunner;
import io.redeq.internal.redis.script.Scripts;

/**
 * Moves every job from one bucket count to another. A job crosses hash slots, so it
 * cannot move in one script: each is copied into its new bucket first and removed from
 * its old one second (only if it is still the job that was copied, in the same state),
 * both idempotent, so an interrupted reshard loses nothing and can run again. Recurring
 * definitions move the same way, with their plan and trigger. Runs only while no instance
 * runs: it refuses while an instance heartbeats, and an engine refuses to start while the
 * meta hash records a change that has not finished.
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

	/**
	 * Moves every job of a prefix from the bucket count recorded in Redis to
	 * {@code buckets}, then records the new count; what {@code Redeq.Builder.reshard()}
	 * runs.
	 * @return the number of jobs moved to another bucket
	 */
	public static long reshard(AbstractRedisClient client, String prefix, int buckets, Duration commandTimeout) {
		try (RedisConnections connections = new RedisConnections(client)) {
			return change(new ScriptRunner(connections, commandTimeout), prefix, buckets);
		}
	}

	/**
	 * Moves every job and recurring definition of a prefix from the bucket count recorded
	 * in Redis to {@code buckets}, then records the new count. Before the first move it
	 * records, in the prefix's meta hash, the count it moves to; an engine refuses to
	 * start while that record says a change has not finished, and only a change to the
	 * same count may run until it has (which finishes the interrupted one: every step is
	 * idempotent).
	 * @param scripts where to run the moves
	 * @param prefix the prefix
	 * @param buckets the new bucket count, a valid one
	 * @return the number of jobs moved to another bucket
	 * @throws IllegalStateException if an instance of the prefix runs its migrator, or an
	 * unfinished change moves to another count
	 */
	public static long change(ScriptRunner scripts, String prefix, int buckets) {
		KeySpace target = new KeySpace(prefix, buckets);
		JobQueries queries = new JobQueries(target, scripts);
		int recorded = queries.recordOrReadBucketCount(buckets);
		int changingTo = queries.readBucketLayout()[1];
		if (changingTo != 0 && changingTo != buckets) {
			throw new IllegalStateException("Cannot change the bucket count of prefix '" + prefix + "' to " + buckets
					+ ": a change from " + recorded + " to " + changingTo + " buckets has not finished; change it to "
					+ changingTo + " first (that finishes the interrupted change), then to " + buckets);
		}
		if (recorded == buckets && changingTo == 0) {
			return 0;
		}
		Resharder resharder = new Resharder(new KeySpace(prefix, recorded), target, scripts);
		resharder.refuseWhileInstancesRun();
		queries.recordChangeBegun(buckets);
		try {
			// Again, now that the change is recorded: an instance that started meanwhile
			// heartbeats before it reads the layout, so either it is seen here or it saw
			// the change and holds its migrator and consumers.
			resharder.refuseWhileInstancesRun();
		}
		catch (IllegalStateException ex) {
			if (changingTo == 0) {
				// Nothing moved yet: the instances that saw the record go on.
				queries.recordChangingTo(0);
			}
			throw ex;
		}
		new FormatUpgrade(resharder.from, scripts).run();
		long moved = resharder.moveAll();
		queries.recordBucketCount(buckets);
		queries.recordChangingTo(0);
		return moved;
	}

	/**
	 * Moves every job that belongs to another bucket now; returns how many moved. Refuses
	 * while an instance of the prefix still runs its migrator (it would go on working on
	 * the old layout), and first records the new bucket count in every bucket, so that an
	 * instance still on the old layout without a migrator (a producer) gets a clear error
	 * from {@code schedule} instead of writing jobs into a bucket nobody reads any more.
	 */
	public long moveAll() {
		refuseWhileInstancesRun();
		for (int b = 0; b < this.from.buckets(); b++) {
			markLayout(this.from, b);
		}
		for (int b = 0; b < this.to.buckets(); b++) {
			markLayout(this.to, b);
		}
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

	private void refuseWhileInstancesRun() {
		RedisClusterAsyncCommands<String, String> commands = this.scripts.connections().commands();
		List<String> time = this.scripts.await(commands.time(), "read the Redis clock");
		long now = Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
		List<String> live = this.scripts.await(
				commands.zrangebyscore(this.from.instancesKey(), Range.create((double) now, Double.POSITIVE_INFINITY)),
				"list running instances");
		if (!live.isEmpty()) {
			throw new IllegalStateException("Cannot change the bucket count of prefix '" + this.from.prefix()
					+ "' from " + this.from.buckets() + " to " + this.to.buckets() + " while " + live.size()
					+ " instance(s) run on it (" + String.join(", ", live)
					+ "): the change does not run beside live instances yet; stop every instance of the prefix "
					+ "(engines with the migrator off too), change the count, then start them: they follow "
					+ "the count recorded in Redis whatever redeq.buckets says");
		}
	}

	private boolean isReused(int bucket) {
		String tag = this.from.tag(bucket);
		for (int b = 0; b < this.to.buckets(); b++) {
			if (this.to.tag(b).equals(tag)) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Records the new layout's bucket count in a bucket, so that the schedule script
	 * refuses jobs from an instance still on the old one.
	 */
	private void markLayout(KeySpace space, int bucket) {
		this.scripts.await(
				this.scripts.connections()
					.commands()
					.hset(space.countKey(bucket), "~buckets", Integer.toString(this.to.buckets())),
				"record the new layout");
	}

	private long moveBucket(int bucket) {
		RedisClusterAsyncCommands<String, String> commands = this.scripts.connections().commands();
		long moved = 0;
		ScanCursor cursor = ScanCursor.INITIAL;
		do {
			MapScanCursor<String, String> page = this.scripts.await(
					commands.hscan(this.from.payloadKey(bucket), cursor, ScanArgs.Builder.limit(500)), "reshard scan");
			for (String jobKey : new ArrayList<>(page.getMap().keySet())) {
				if (!KeySpace.isAttemptField(jobKey) && move(bucket, jobKey)) {
					moved++;
				}
			}
			cursor = page;
		}
		while (!cursor.isFinished());
		moveRecurring(bucket);
		return moved;
	}

	/**
	 * Moves the recurring definitions of an old bucket (each with its plan and trigger)
	 * whose jobKey falls in another bucket of the new layout.
	 */
	private void moveRecurring(int bucket) {
		RedisClusterAsyncCommands<String, String> commands = this.scripts.connections().commands();
		ScanCursor cursor = ScanCursor.INITIAL;
		do {
			MapScanCursor<String, String> page = this.scripts.await(
					commands.hscan(this.from.recurringKey(bucket), cursor, ScanArgs.Builder.limit(500)),
					"reshard scan recurring");
			for (Map.Entry<String, String> field : page.getMap().entrySet()) {
				if (!field.getKey().startsWith("~")) {
					moveDefinition(bucket, field.getKey(), field.getValue());
				}
			}
			cursor = page;
		}
		while (!cursor.isFinished());
	}

	private void moveDefinition(int bucket, String jobKey, String definition) {
		int target = this.to.bucketOf(jobKey);
		if (this.to.tag(target).equals(this.from.tag(bucket))) {
			return;
		}
		RedisClusterAsyncCommands<String, String> commands = this.scripts.connections().commands();
		String plan = this.scripts.await(commands.hget(this.from.recurringKey(bucket), "~p:" + jobKey),
				"reshard read recurring");
		Double trigger = this.scripts.await(commands.zscore(this.from.dueKey(bucket), "~r:" + jobKey),
				"reshard read recurring");
		this.scripts.run(Scripts.RECURRING_IMPORT,
				new String[] { this.to.recurringKey(target), this.to.dueKey(target) }, jobKey, definition,
				(plan != null) ? plan : "", (trigger != null) ? new BigDecimal(trigger).toPlainString() : "");
		this.scripts.run(Scripts.RECURRING_REMOVE,
				new String[] { this.from.recurringKey(bucket), this.from.dueKey(bucket) }, jobKey, definition);
	}

	private boolean move(int bucket, String jobKey) {
		int target = this.to.bucketOf(jobKey);
		if (this.to.tag(target).equals(this.from.tag(bucket))) {
			return false; // same bucket in both layouts
		}
		String topic = KeySpace.topicOf(jobKey);
		RedisClusterAsyncCommands<String, String> commands = this.scripts.connections().commands();
		String payload = this.scripts.await(commands.hget(this.from.payloadKey(bucket), jobKey), "reshard read");
		if (payload == null) {
			return false; // finished meanwhile
		}
		String attempt = this.scripts.await(commands.hget(this.from.payloadKey(bucket), KeySpace.attemptField(jobKey)),
				"reshard read");
		String error = this.scripts.await(commands.hget(this.from.errorKey(bucket), jobKey), "reshard read");
		String[] state = stateOf(bucket, topic, jobKey);
		if (state == null) {
			return false;
		}
		String[] importKeys = this.to.jobScriptKeys(target, List.of(topic));
		this.scripts.run(Scripts.RESHARD_IMPORT, importKeys, topic, jobKey, payload, (attempt != null) ? attempt : "",
				(error != null) ? error : "", state[0], state[1]);
		this.scripts.run(Scripts.RESHARD_REMOVE, this.from.jobScriptKeys(bucket, List.of(topic)), topic, jobKey,
				payload, state[0]);
		return true;
	}

	/** The state code and the score of a job in that state's index, or null. */
	private String[] stateOf(int bucket, String topic, String jobKey) {
		RedisClusterAsyncCommands<String, String> commands = this.scripts.connections().commands();
		String[][] indexes = { { "D", this.from.dueKey(bucket) }, { "R", this.from.readyKey(bucket, topic) },
				{ "I", this.from.leaseKey(bucket) }, { "X", this.from.diedKey(bucket) } };
		for (String[] index : indexes) {
			Double score = this.scripts.await(commands.zscore(index[1], jobKey), "reshard read");
			if (score != null) {
				// Exact, fraction included: a job's priority rides
				// in it (lib/settings.lua).
				return new String[] { index[0], new BigDecimal(score).toPlainString() };
			}
		}
		return null;
	}

	/**
	 * Deletes an old bucket's keys when the new layout does not use its tag and nothing
	 * is left in it.
	 */
	private void dropIfUnused(int bucket) {
		if (isReused(bucket)) {
			return;
		}
		RedisClusterAsyncCommands<String, String> commands = this.scripts.connections().commands();
		Long jobs = this.scripts.await(commands.hlen(this.from.payloadKey(bucket)), "reshard cleanup");
		Long definitions = this.scripts.await(commands.hlen(this.from.recurringKey(bucket)), "reshard cleanup");
		long left = ((jobs != null) ? jobs : 0) + ((definitions != null) ? definitions : 0);
		if (left > 0) {
			logger.warn("Bucket {} of the old layout still holds {} jobs or recurring definitions after the "
					+ "reshard; run it again", this.from.tag(bucket), left);
			return;
		}
		List<String> topics = this.scripts.await(commands.hkeys(this.from.countKey(bucket)), "reshard topics");
		List<String> doomed = new ArrayList<>(List.of(this.from.bucketKeys(bucket)));
		doomed.add(this.from.recurringKey(bucket));
		for (String field : topics) {
			if (field.indexOf(':') < 0 && !field.startsWith("~")) {
				doomed.add(this.from.readyKey(bucket, field));
				doomed.add(this.from.deadKey(bucket, field));
			}
		}
		for (String key : doomed) {
			this.scripts.await(commands.del(key), "reshard cleanup");
		}
		// The one field left: an old-layout producer still gets its error.
		markLayout(this.from, bucket);
	}

}
