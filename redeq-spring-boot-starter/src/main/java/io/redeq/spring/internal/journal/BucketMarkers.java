package io.redeq.spring.internal.journal;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.IntSupplier;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;

import io.redeq.internal.redis.KeySpace;

/**
 * The journal's markers as one string key per bucket, {@code <bucket tag>:journal}, in
 * the bucket's hash slot, so it goes wherever the bucket's jobs go (the same master of a
 * cluster) and is lost with them. Its value is {@code lost:<generation>} while a recovery
 * of the bucket is under way and {@code ok:<generation>} after it ({@code ok:unharmed}
 * for a bucket that had nothing to recover). The engine never writes it, so its own start
 * cannot hide a loss.
 *
 * <p>
 * Each change is one script on one key: creating the generation only where there is none,
 * so concurrent recoverers agree on it; marking recovered only over the same generation,
 * so a second loss during a recovery stays visible.
 */
public final class BucketMarkers implements RedisMarker {

	private static final String LOST = "lost:";

	private static final String OK = "ok:";

	private static final byte[] UNHARMED = (OK + "unharmed").getBytes(StandardCharsets.UTF_8);

	private static final byte[] GENERATION_SCRIPT = """
			local marker = redis.call('GET', KEYS[1])
			if not marker then
				marker = 'lost:' .. ARGV[1]
				redis.call('SET', KEYS[1], marker)
			end
			return marker""".getBytes(StandardCharsets.UTF_8);

	/** Another recoverer of the same generation may have marked it first. */
	private static final byte[] RECOVERED_SCRIPT = """
			local marker = redis.call('GET', KEYS[1])
			if marker == 'lost:' .. ARGV[1] then
				redis.call('SET', KEYS[1], 'ok:' .. ARGV[1])
				return 1
			end
			if marker == 'ok:' .. ARGV[1] then
				return 1
			end
			return 0""".getBytes(StandardCharsets.UTF_8);

	private final RedisConnectionFactory connectionFactory;

	private final String prefix;

	/** The bucket count the engine runs on now. */
	private final IntSupplier bucketCount;

	/** The markers of the last bucket count asked for. */
	private volatile Layout layout;

	/**
	 * The markers of one prefix on a fixed bucket count.
	 * @param connectionFactory the application's Redis
	 * @param prefix redeq's key prefix
	 * @param buckets the bucket count
	 */
	public BucketMarkers(RedisConnectionFactory connectionFactory, String prefix, int buckets) {
		this(connectionFactory, prefix, () -> buckets);
	}

	/**
	 * The markers of one prefix on the bucket count its engine runs on at each check:
	 * after a change of the count, the new buckets' markers. A bucket the new layout adds
	 * has none yet, so the next check samples its pending jobs and marks it quietly when
	 * Redis knows them, as it does for a journal just turned on.
	 * @param connectionFactory the application's Redis
	 * @param prefix redeq's key prefix
	 * @param bucketCount the engine's bucket count now
	 */
	public BucketMarkers(RedisConnectionFactory connectionFactory, String prefix, IntSupplier bucketCount) {
		this.connectionFactory = connectionFactory;
		this.prefix = prefix;
		this.bucketCount = bucketCount;
		this.layout = new Layout(new KeySpace(prefix, bucketCount.getAsInt()));
	}

	/**
	 * The marker key of a bucket, as an operator deletes it to force a recovery.
	 * @param keys the key space
	 * @param bucket the bucket
	 * @return the key
	 */
	static String markerKey(KeySpace keys, int bucket) {
		return keys.tag(bucket) + ":journal";
	}

	@Override
	public RedisMarker onCurrentLayout() {
		int buckets = this.bucketCount.getAsInt();
		Layout current = this.layout;
		if (current.keys.buckets() != buckets) {
			current = new Layout(new KeySpace(this.prefix, buckets));
			this.layout = current;
		}
		return current;
	}

	@Override
	public int buckets() {
		return onCurrentLayout().buckets();
	}

	@Override
	public int bucketOf(String topic, String id) {
		return onCurrentLayout().bucketOf(topic, id);
	}

	@Override
	public State[] read() {
		return onCurrentLayout().read();
	}

	@Override
	public @Nullable String lossGeneration(int bucket, String candidate) {
		return onCurrentLayout().lossGeneration(bucket, candidate);
	}

	@Override
	public boolean markRecovered(int bucket, String generation) {
		return onCurrentLayout().markRecovered(bucket, generation);
	}

	@Override
	public void markUnharmed(int bucket) {
		onCurrentLayout().markUnharmed(bucket);
	}

	private static State state(byte @Nullable [] value) {
		if (value == null) {
			return State.ABSENT;
		}
		return new String(value, StandardCharsets.UTF_8).startsWith(OK) ? State.PRESENT : State.RECOVERING;
	}

	/** The markers of one bucket count. */
	private final class Layout implements RedisMarker {

		private final KeySpace keys;

		private final byte[][] markerKeys;

		Layout(KeySpace keys) {
			this.keys = keys;
			this.markerKeys = new byte[keys.buckets()][];
			for (int b = 0; b < this.markerKeys.length; b++) {
				this.markerKeys[b] = markerKey(keys, b).getBytes(StandardCharsets.UTF_8);
			}
		}

		@Override
		public int buckets() {
			return this.markerKeys.length;
		}

		@Override
		public int bucketOf(String topic, String id) {
			return this.keys.bucketOf(KeySpace.jobKey(topic, id));
		}

		@Override
		public State[] read() {
			List<byte[]> values;
			try (RedisConnection connection = BucketMarkers.this.connectionFactory.getConnection()) {
				// One MGET; on a cluster Spring Data splits it by slot.
				values = connection.stringCommands().mGet(this.markerKeys);
			}
			State[] states = new State[this.markerKeys.length];
			for (int b = 0; b < states.length; b++) {
				byte[] value = (values != null) ? values.get(b) : null;
				states[b] = state(value);
			}
			return states;
		}

		@Override
		public @Nullable String lossGeneration(int bucket, String candidate) {
			byte[] marker;
			try (RedisConnection connection = BucketMarkers.this.connectionFactory.getConnection()) {
				marker = connection.scriptingCommands()
					.eval(GENERATION_SCRIPT, ReturnType.VALUE, 1, this.markerKeys[bucket],
							candidate.getBytes(StandardCharsets.UTF_8));
			}
			String value = (marker != null) ? new String(marker, StandardCharsets.UTF_8) : "";
			return value.startsWith(LOST) ? value.substring(LOST.length()) : null;
		}

		@Override
		public boolean markRecovered(int bucket, String generation) {
			Long set;
			try (RedisConnection connection = BucketMarkers.this.connectionFactory.getConnection()) {
				set = connection.scriptingCommands()
					.eval(RECOVERED_SCRIPT, ReturnType.INTEGER, 1, this.markerKeys[bucket],
							generation.getBytes(StandardCharsets.UTF_8));
			}
			return set != null && set == 1;
		}

		@Override
		public void markUnharmed(int bucket) {
			try (RedisConnection connection = BucketMarkers.this.connectionFactory.getConnection()) {
				connection.stringCommands().setNX(this.markerKeys[bucket], UNHARMED);
			}
		}

	}

}
