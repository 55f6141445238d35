package io.redeq.internal.redis;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.lettuce.core.MapScanCursor;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.redeq.RedeqException;
import io.redeq.internal.redis.script.ScriptRunner;
import io.redeq.internal.redis.script.Scripts;

/**
 * Converts jobs written in redeq's earlier data formats to format 3, so an instance that
 * upgrades strands no job. Format 1 kept one record per job holding its state and
 * payload; format 2 wrote the payload once and kept the state in the indexes, with the
 * attempt records in a hash of their own; format 3 keeps those attempt records in the
 * payload hash beside the jobs' records (see {@code prelude.lua}), so one command reads
 * or forgets both.
 *
 * <p>
 * It runs when an engine starts: one pipelined round of EXISTS per bucket finds out
 * whether any format-1 jobs or format-2 attempt records are left (so the check costs one
 * round trip once the data is converted), then each such bucket is converted in chunks,
 * one script per chunk, each job in the state it had. Interrupted, it simply runs again
 * at the next start. Instances of an earlier format should be stopped first: what they
 * write later is converted at the next start of an upgraded instance, not before, and a
 * format-2 instance still running does not find the attempt records of the jobs it holds:
 * their completions are refused, and the jobs run again once their leases expire
 * (delivered twice, never lost).
 *
 * <p>
 * The format is recorded in the prefix's meta hash. An instance that finds a newer format
 * there (Redis was written by a newer redeq) refuses to start and changes nothing: it
 * cannot read those jobs, and writing its own format would strand them. Downgrading is
 * only possible to a version that reads the recorded format.
 */
public final class FormatUpgrade {

	private static final Logger logger = LoggerFactory.getLogger(FormatUpgrade.class);

	private static final int CHUNK = 200;

	/** The data format this version reads and writes. */
	public static final int FORMAT = 3;

	private final KeySpace keys;

	private final ScriptRunner scripts;

	public FormatUpgrade(KeySpace keys, ScriptRunner scripts) {
		this.keys = keys;
		this.scripts = scripts;
	}

	/**
	 * Converts every format-1 job and format-2 attempt record of the prefix and records
	 * format {@value #FORMAT}; returns how many jobs it converted (attempt records moved
	 * included).
	 * @throws RedeqException if Redis records a newer format; nothing is changed then
	 */
	public long run() {
		RedisClusterAsyncCommands<String, String> commands = this.scripts.connections().commands();
		checkReadable();
		List<CompletionStage<Long>> formatOne = new ArrayList<>();
		List<CompletionStage<Long>> formatTwo = new ArrayList<>();
		for (int b = 0; b < this.keys.buckets(); b++) {
			formatOne.add(commands.exists(this.keys.formatOneCountsKey(b)));
			formatTwo.add(commands.exists(this.keys.formatTwoAttemptKey(b)));
		}
		long converted = 0;
		long moved = 0;
		for (int b = 0; b < this.keys.buckets(); b++) {
			if (this.scripts.await(formatOne.get(b), "look for jobs of redeq's first data format") > 0) {
				converted += convertBucket(b);
			}
			if (this.scripts.await(formatTwo.get(b), "look for attempt records of redeq's data format 2") > 0) {
				moved += moveAttemptRecords(b);
			}
		}
		if (converted > 0) {
			logger.info("Converted {} jobs of prefix '{}' from redeq's first data format to format {}", converted,
					this.keys.prefix(), FORMAT);
		}
		if (moved > 0) {
			logger.info("Moved {} attempt records of prefix '{}' into the payload hashes (redeq's data format {})",
					moved, this.keys.prefix(), FORMAT);
		}
		forgetInFlightCounters();
		Long recorded = this.scripts.run(Scripts.RECORD_FORMAT, new String[] { this.keys.metaKey() },
				Integer.toString(FORMAT));
		refuseNewerFormat(Long.toString(recorded));
		return converted + moved;
	}

	/**
	 * Refuses a prefix whose recorded data format is newer than this version's, before
	 * anything is written to it.
	 * @throws RedeqException naming both formats if it is
	 */
	public void checkReadable() {
		refuseNewerFormat(this.scripts.await(this.scripts.connections().commands().hget(this.keys.metaKey(), "format"),
				"read the data format"));
	}

	/**
	 * Throws if {@code recorded} is a format newer than this version's: a newer redeq
	 * wrote this prefix, and this one would misread or strand its jobs.
	 */
	private void refuseNewerFormat(@Nullable String recorded) {
		if (recorded == null) {
			return;
		}
		long format;
		try {
			format = Long.parseLong(recorded.trim());
		}
		catch (NumberFormatException ex) {
			throw new RedeqException("redeq prefix '" + this.keys.prefix() + "' records data format '" + recorded
					+ "' in " + this.keys.metaKey() + ", which this version of redeq cannot read (it reads format "
					+ FORMAT + ")");
		}
		if (format > FORMAT) {
			throw new RedeqException("redeq prefix '" + this.keys.prefix() + "' holds data format " + format
					+ " in Redis, written by a newer version of redeq; this version reads and writes format " + FORMAT
					+ " and does not start, to leave those jobs untouched. Run the redeq version the other "
					+ "instances run (a downgrade is possible only to a version that reads format " + format + ").");
		}
	}

	/**
	 * Deletes the per-topic in-flight counters earlier versions of format 2 kept:
	 * IN_FLIGHT jobs are now counted from the lease set, and a stale counter would only
	 * take room. Not a format change: an older instance reads a missing counter as 0,
	 * which affects its stats only, never a job. One script per bucket, sent together.
	 */
	private void forgetInFlightCounters() {
		List<CompletableFuture<Long>> calls = new ArrayList<>();
		for (int b = 0; b < this.keys.buckets(); b++) {
			calls.add(this.scripts.runAsync(Scripts.FORGET_IN_FLIGHT_COUNTERS, new String[] { this.keys.countKey(b) }));
		}
		for (CompletableFuture<Long> call : calls) {
			this.scripts.await(call, "forget the in-flight counters of an earlier redeq");
		}
	}

	private long convertBucket(int bucket) {
		RedisClusterAsyncCommands<String, String> commands = this.scripts.connections().commands();
		long converted = 0;
		ScanCursor cursor = ScanCursor.INITIAL;
		do {
			MapScanCursor<String, String> page = this.scripts.await(
					commands.hscan(this.keys.formatOneJobsKey(bucket), cursor, ScanArgs.Builder.limit(CHUNK)),
					"read jobs of redeq's first data format");
			List<String> jobKeys = new ArrayList<>(page.getMap().keySet());
			for (int from = 0; from < jobKeys.size(); from += CHUNK) {
				converted += convert(bucket, jobKeys.subList(from, Math.min(jobKeys.size(), from + CHUNK)));
			}
			cursor = page;
		}
		while (!cursor.isFinished());
		dropFormatOneKeys(bucket);
		return converted;
	}

	private long convert(int bucket, List<String> jobKeys) {
		Set<String> topics = new LinkedHashSet<>();
		for (String jobKey : jobKeys) {
			topics.add(KeySpace.topicOf(jobKey));
		}
		List<String> keyList = new ArrayList<>(List.of(this.keys.jobScriptKeys(bucket, topics)));
		keyList.addAll(List.of(this.keys.formatOneScriptKeys(bucket)));
		List<String> args = new ArrayList<>();
		args.add(String.join(",", topics));
		args.addAll(jobKeys);
		Long converted = this.scripts.run(Scripts.UPGRADE_V1, keyList.toArray(String[]::new),
				args.toArray(String[]::new));
		return converted;
	}

	/**
	 * Moves a bucket's format-2 attempt records into its payload hash, a chunk per
	 * script; the attempt hash is gone once the last chunk leaves it (Redis deletes an
	 * empty hash).
	 */
	private long moveAttemptRecords(int bucket) {
		RedisClusterAsyncCommands<String, String> commands = this.scripts.connections().commands();
		String attempts = this.keys.formatTwoAttemptKey(bucket);
		String[] fixed = this.keys.bucketKeys(bucket);
		String[] keyList = Arrays.copyOf(fixed, fixed.length + 1);
		keyList[fixed.length] = attempts;
		long moved = 0;
		ScanCursor cursor = ScanCursor.INITIAL;
		do {
			MapScanCursor<String, String> page = this.scripts.await(
					commands.hscan(attempts, cursor, ScanArgs.Builder.limit(CHUNK)),
					"read attempt records of redeq's data format 2");
			List<String> jobKeys = new ArrayList<>(page.getMap().keySet());
			for (int from = 0; from < jobKeys.size(); from += CHUNK) {
				List<String> args = new ArrayList<>();
				args.add("");
				args.addAll(jobKeys.subList(from, Math.min(jobKeys.size(), from + CHUNK)));
				Long chunk = this.scripts.run(Scripts.UPGRADE_V2, keyList, args.toArray(String[]::new));
				moved += chunk;
			}
			cursor = page;
		}
		while (!cursor.isFinished());
		return moved;
	}

	/**
	 * Deletes what is left of the first format in a bucket once its jobs hash is empty:
	 * the indexes, counters and per-topic ready lists and dead sets.
	 */
	private void dropFormatOneKeys(int bucket) {
		RedisClusterAsyncCommands<String, String> commands = this.scripts.connections().commands();
		String jobs = this.keys.formatOneJobsKey(bucket);
		Long left = this.scripts.await(commands.hlen(jobs), "check the first format's jobs");
		if (left != null && left > 0) {
			logger.warn("{} unreadable jobs of redeq's first data format are left in {}; they were not converted", left,
					jobs);
			return;
		}
		Set<String> topics = new LinkedHashSet<>();
		for (String field : this.scripts.await(commands.hkeys(this.keys.formatOneCountsKey(bucket)),
				"read the first format's counters")) {
			int colon = field.lastIndexOf(':');
			if (colon > 0) {
				topics.add(field.substring(0, colon));
			}
		}
		List<String> doomed = new ArrayList<>(List.of(this.keys.formatOneKeys(bucket)));
		for (String topic : topics) {
			doomed.addAll(List.of(this.keys.formatOneTopicKeys(bucket, topic)));
		}
		for (String key : doomed) {
			this.scripts.await(commands.del(key), "drop the first format's keys");
		}
	}

}
