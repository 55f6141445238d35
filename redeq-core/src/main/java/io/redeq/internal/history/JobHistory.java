package io.redeq.internal.history;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;

import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.redeq.HistoryKind;
import io.redeq.HistorySeries;
import io.redeq.LatenessSeries;
import io.redeq.RedeqHistory;
import io.redeq.internal.JobEvents;
import io.redeq.internal.LogOnce;
import io.redeq.internal.redis.HistoryMax;
import io.redeq.internal.redis.KeySpace;
import io.redeq.internal.redis.script.ScriptRunner;

/**
 * The shared job history: every instance counts its own events in memory (an add to a
 * {@link LongAdder}, nothing more on the job's path) and adds the counts to Redis every
 * {@link #FLUSH_INTERVAL} from its stats thread, with one pipelined round of HINCRBY and
 * PEXPIRE (the commands redeq's ACL user already has); readers sum nothing, the hashes
 * already hold every instance's counts.
 *
 * <p>
 * Memory is bounded by expiry, not by trimming: a per-minute hash covers one hour and
 * expires a day after it ends; a per-hour hash covers one day and expires 31 days after
 * it ends. So a topic holds at most 25 minute hashes and 32 hour hashes per kind, each in
 * Redis's compact encoding (60 and 24 fields). The minute of a count comes from the
 * flushing instance's clock: the history is for charts, nothing depends on it. Counts of
 * a flush that fails (Redis unreachable) are dropped, so the chart shows the gap.
 *
 * <p>
 * Lateness (due time → start, the figure of the {@code redeq.jobs.lateness} timer) is
 * kept beside the counts, per topic in three more hashes per minute and hour with the
 * same expiry: {@value #LATENESS_COUNT} (starts, HINCRBY), {@value #LATENESS_SUM} (ms
 * added up, HINCRBY) and {@value #LATENESS_MAX} (the largest, raised by the one-key
 * script {@code history-max.lua}: Redis has no "set if larger"). In memory an instance
 * holds three numbers per topic between flushes.
 *
 * <p>
 * Decorates the engine's other {@link JobEvents} (metrics), passing every event on.
 */
public final class JobHistory implements JobEvents, RedeqHistory {

	/** How often an instance adds its counts to Redis. */
	public static final Duration FLUSH_INTERVAL = Duration.ofSeconds(5);

	/** How long per-minute counts are kept after their hour ends. */
	static final Duration MINUTES_KEPT = Duration.ofDays(1);

	/** How long per-hour counts are kept after their day ends. */
	static final Duration HOURS_KEPT = Duration.ofDays(31);

	/** The kind (in key names) of the starts counted for lateness. */
	static final String LATENESS_COUNT = "lateness-count";

	/** The kind (in key names) of the lateness of those starts added up, in ms. */
	static final String LATENESS_SUM = "lateness-sum";

	/** The kind (in key names) of the largest lateness of a start, in ms. */
	static final String LATENESS_MAX = "lateness-max";

	private static final Logger logger = LoggerFactory.getLogger(JobHistory.class);

	private static final long MINUTE = 60_000;

	private static final long HOUR = 60 * MINUTE;

	private static final long DAY = 24 * HOUR;

	private final KeySpace keys;

	private final ScriptRunner scripts;

	private final JobEvents next;

	private final Clock clock;

	private final Map<String, LongAdder[]> pending = new ConcurrentHashMap<>();

	private final Map<String, Lateness> lateness = new ConcurrentHashMap<>();

	private final HistoryMax max;

	private final LogOnce failures = new LogOnce(logger);

	public JobHistory(KeySpace keys, ScriptRunner scripts, JobEvents next, Clock clock) {
		this.keys = keys;
		this.scripts = scripts;
		this.max = new HistoryMax(scripts);
		this.next = next;
		this.clock = clock;
	}

	/** Flushes every {@link #FLUSH_INTERVAL} on the given (stats) executor. */
	public void start(ScheduledExecutorService executor) {
		long every = FLUSH_INTERVAL.toMillis();
		executor.scheduleWithFixedDelay(this::flushQuietly, every, every, TimeUnit.MILLISECONDS);
	}

	// ---- recording (job path: memory only)

	@Override
	public void scheduled(String topic) {
		count(topic, HistoryKind.SCHEDULED);
		this.next.scheduled(topic);
	}

	@Override
	public void cancelled(String topic) {
		this.next.cancelled(topic);
	}

	@Override
	public void started(String topic, Duration lateness) {
		this.lateness.computeIfAbsent(topic, (t) -> new Lateness()).add(lateness);
		this.next.started(topic, lateness);
	}

	@Override
	public void completed(String topic, Duration handlerDuration) {
		count(topic, HistoryKind.COMPLETED);
		this.next.completed(topic, handlerDuration);
	}

	@Override
	public void retried(String topic, Duration handlerDuration) {
		count(topic, HistoryKind.RETRIED);
		this.next.retried(topic, handlerDuration);
	}

	@Override
	public void dead(String topic) {
		count(topic, HistoryKind.DEAD);
		this.next.dead(topic);
	}

	@Override
	public void migrated(int bucket, int migrated, int reclaimed) {
		this.next.migrated(bucket, migrated, reclaimed);
	}

	private void count(String topic, HistoryKind kind) {
		this.pending.computeIfAbsent(topic, (t) -> newAdders())[kind.ordinal()].increment();
	}

	private static LongAdder[] newAdders() {
		LongAdder[] adders = new LongAdder[HistoryKind.values().length];
		for (int i = 0; i < adders.length; i++) {
			adders[i] = new LongAdder();
		}
		return adders;
	}

	// ---- flushing (stats thread)

	private void flushQuietly() {
		try {
			flush();
			this.failures.recovered("redeq wrote its job history to Redis again", "");
		}
		catch (RuntimeException ex) {
			this.failures.failed("redeq could not write its job history to Redis; the counts of this period are "
					+ "left out of the dashboard's charts", ex);
		}
	}

	/**
	 * Adds the counts since the last flush to Redis, in one pipelined round: per topic
	 * and kind with a count, HINCRBY and PEXPIRE on its minute hash and on its hour hash.
	 */
	public void flush() {
		long now = this.clock.millis();
		long hour = now / HOUR;
		long day = now / DAY;
		String minuteField = Long.toString((now % HOUR) / MINUTE);
		String hourField = Long.toString((now % DAY) / HOUR);
		long minutesExpireAt = (hour + 1) * HOUR + MINUTES_KEPT.toMillis();
		long hoursExpireAt = (day + 1) * DAY + HOURS_KEPT.toMillis();
		RedisClusterAsyncCommands<String, String> commands = this.scripts.connections().commands();
		List<CompletionStage<?>> replies = new ArrayList<>();
		for (Map.Entry<String, LongAdder[]> entry : this.pending.entrySet()) {
			String topic = entry.getKey();
			for (HistoryKind kind : HistoryKind.values()) {
				long count = entry.getValue()[kind.ordinal()].sumThenReset();
				if (count == 0) {
					continue;
				}
				String minutes = this.keys.historyKey(topic, key(kind), 'm', hour);
				String hours = this.keys.historyKey(topic, key(kind), 'h', day);
				replies.add(commands.hincrby(minutes, minuteField, count));
				replies.add(commands.pexpire(minutes, minutesExpireAt - now));
				replies.add(commands.hincrby(hours, hourField, count));
				replies.add(commands.pexpire(hours, hoursExpireAt - now));
			}
		}
		for (Map.Entry<String, Lateness> entry : this.lateness.entrySet()) {
			String topic = entry.getKey();
			Lateness late = entry.getValue();
			long count = late.count.sumThenReset();
			long sum = late.sumMillis.sumThenReset();
			long max = late.maxMillis.getThenReset();
			if (count == 0) {
				continue;
			}
			for (char resolution : new char[] { 'm', 'h' }) {
				long period = (resolution == 'm') ? hour : day;
				String field = (resolution == 'm') ? minuteField : hourField;
				long ttl = ((resolution == 'm') ? minutesExpireAt : hoursExpireAt) - now;
				String counts = this.keys.historyKey(topic, LATENESS_COUNT, resolution, period);
				String sums = this.keys.historyKey(topic, LATENESS_SUM, resolution, period);
				replies.add(commands.hincrby(counts, field, count));
				replies.add(commands.pexpire(counts, ttl));
				replies.add(commands.hincrby(sums, field, sum));
				replies.add(commands.pexpire(sums, ttl));
				replies.add(
						this.max.raise(this.keys.historyKey(topic, LATENESS_MAX, resolution, period), field, max, ttl));
			}
		}
		for (CompletionStage<?> reply : replies) {
			this.scripts.await(reply, "write job history");
		}
	}

	// ---- reading

	/**
	 * A topic's counts per minute over the last {@code minutes} minutes, the current
	 * (partial) minute last; at most a day.
	 */
	@Override
	public HistorySeries lastMinutes(String topic, int minutes) {
		return read(topic, Math.min(minutes, (int) (MINUTES_KEPT.toMillis() / MINUTE)), MINUTE, HOUR, 'm');
	}

	/**
	 * A topic's counts per hour over the last {@code hours} hours, the current (partial)
	 * hour last; at most 31 days.
	 */
	@Override
	public HistorySeries lastHours(String topic, int hours) {
		return read(topic, Math.min(hours, (int) (HOURS_KEPT.toMillis() / HOUR)), HOUR, DAY, 'h');
	}

	/**
	 * How late a topic's jobs started per minute over the last {@code minutes} minutes,
	 * the current (partial) minute last; at most a day.
	 */
	@Override
	public LatenessSeries latenessLastMinutes(String topic, int minutes) {
		return readLateness(topic, Math.min(minutes, (int) (MINUTES_KEPT.toMillis() / MINUTE)), MINUTE, HOUR, 'm');
	}

	/**
	 * How late a topic's jobs started per hour over the last {@code hours} hours, the
	 * current (partial) hour last; at most 31 days.
	 */
	@Override
	public LatenessSeries latenessLastHours(String topic, int hours) {
		return readLateness(topic, Math.min(hours, (int) (HOURS_KEPT.toMillis() / HOUR)), HOUR, DAY, 'h');
	}

	private LatenessSeries readLateness(String topic, int periods, long step, long perHash, char resolution) {
		long last = this.clock.millis() / step;
		long first = last - periods + 1;
		List<String> kinds = List.of(LATENESS_COUNT, LATENESS_SUM, LATENESS_MAX);
		long[][] values = new long[kinds.size()][periods];
		readInto(topic, kinds, values, first, last, step, perHash, resolution);
		// Each period is one field of one hash, so adding fields up leaves a max a max.
		return new LatenessSeries(topic, Instant.ofEpochMilli(first * step), Duration.ofMillis(step), values[0],
				values[1], values[2]);
	}

	/**
	 * Reads {@code periods} periods of {@code step} ms ending with the current one: one
	 * HGETALL per kind and hash the periods fall in, pipelined.
	 */
	private HistorySeries read(String topic, int periods, long step, long perHash, char resolution) {
		long last = this.clock.millis() / step;
		long first = last - periods + 1;
		Map<HistoryKind, long[]> counts = new EnumMap<>(HistoryKind.class);
		List<String> kinds = new ArrayList<>();
		long[][] values = new long[HistoryKind.values().length][];
		for (HistoryKind kind : HistoryKind.values()) {
			kinds.add(key(kind));
			values[kind.ordinal()] = new long[periods];
			counts.put(kind, values[kind.ordinal()]);
		}
		readInto(topic, kinds, values, first, last, step, perHash, resolution);
		return new HistorySeries(topic, Instant.ofEpochMilli(first * step), Duration.ofMillis(step), counts);
	}

	/** The kind's name in the history's key names. */
	static String key(HistoryKind kind) {
		return kind.name().toLowerCase(Locale.ROOT);
	}

	/**
	 * Adds the fields of each kind's hashes for periods {@code first} to {@code last}
	 * into {@code values[kind]}, all HGETALL pipelined.
	 */
	private void readInto(String topic, List<String> kinds, long[][] values, long first, long last, long step,
			long perHash, char resolution) {
		RedisClusterAsyncCommands<String, String> commands = this.scripts.connections().commands();
		long stepsPerHash = perHash / step;
		record Read(int kind, long hash, CompletionStage<Map<String, String>> fields) {
		}
		List<Read> reads = new ArrayList<>();
		for (int kind = 0; kind < kinds.size(); kind++) {
			for (long hash = first / stepsPerHash; hash <= last / stepsPerHash; hash++) {
				reads.add(new Read(kind, hash,
						commands.hgetall(this.keys.historyKey(topic, kinds.get(kind), resolution, hash))));
			}
		}
		for (Read read : reads) {
			long[] counts = values[read.kind()];
			for (Map.Entry<String, String> field : this.scripts.await(read.fields(), "read job history").entrySet()) {
				long period = read.hash() * stepsPerHash + Long.parseLong(field.getKey());
				if (period >= first && period <= last) {
					counts[(int) (period - first)] += Long.parseLong(field.getValue());
				}
			}
		}
	}

	/**
	 * The lateness of a topic's starts since the last flush. The three figures are reset
	 * one after the other, so a start recorded meanwhile may count in one flush and its
	 * lateness in the next: a chart is off by one start at most, nothing depends on it.
	 */
	private static final class Lateness {

		final LongAdder count = new LongAdder();

		final LongAdder sumMillis = new LongAdder();

		final LongAccumulator maxMillis = new LongAccumulator(Math::max, 0);

		void add(Duration lateness) {
			// A start a little ahead of its due time (clocks) counts as on time.
			long millis = Math.max(0, lateness.toMillis());
			this.count.increment();
			this.sumMillis.add(millis);
			this.maxMillis.accumulate(millis);
		}

	}

}
