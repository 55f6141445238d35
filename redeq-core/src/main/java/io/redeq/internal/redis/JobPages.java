package io.redeq.internal.redis;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.jspecify.annotations.Nullable;

import io.redeq.JobState;
import io.redeq.JobView;

/**
 * Pages of one topic's jobs in one state, payloads included, for operators.
 *
 * <p>
 * A topic's jobs are spread over all buckets, each index sorted on its own, so a page at
 * {@code offset} needs the first {@code offset + limit} entries of every bucket: one list
 * script per bucket, pipelined, then a merge in memory, then the payloads of the page's
 * jobs only. The cost of a call is therefore {@code buckets × (offset + limit)} index
 * entries plus {@code limit} payloads: it grows with the offset, not with the topic's
 * size, which is why {@code offset + limit} is capped. DELAYED and IN_FLIGHT jobs sit in
 * indexes that every topic of a bucket shares; there each bucket looks at no more than
 * {@link #SHARED_INDEX_BUDGET} entries, so a topic that is rare among many others' jobs
 * may show a shorter page than it has jobs.
 *
 * <p>
 * The two reads are not one snapshot: a job that changes state between them is shown in
 * the state the first read found, and a job that finished meanwhile is left out.
 */
public final class JobPages {

	/** Largest {@code offset + limit}: bounds the entries read per bucket. */
	public static final int MAX_WINDOW = 10_000;

	/**
	 * Most entries of a shared index (DELAYED, IN_FLIGHT) one call looks at per bucket.
	 */
	public static final int SHARED_INDEX_BUDGET = 20_000;

	/** Most entries one list script looks at: bounds how long it holds Redis. */
	static final int STEP = 1000;

	/** Bounds the steps of one call: enough for the budget and for the deepest window. */
	private static final int MAX_ROUNDS = Math.max(SHARED_INDEX_BUDGET, MAX_WINDOW) / STEP + 1;

	private final RedisJobStore store;

	private final KeySpace keys;

	public JobPages(RedisJobStore store) {
		this.store = store;
		this.keys = store.keys();
	}

	/**
	 * A page of a topic's jobs in one state: DELAYED by due time, READY in the order
	 * consumers claim them (earliest due first), IN_FLIGHT by lease deadline, DEAD most
	 * recent first. Callers validate the arguments.
	 */
	public List<JobView> page(String topic, JobState state, int offset, int limit) {
		char code = codeOf(state);
		int window = offset + limit;
		boolean shared = state == JobState.DELAYED || state == JobState.IN_FLIGHT;
		List<Walk> walks = new ArrayList<>();
		for (int b = 0; b < this.keys.buckets(); b++) {
			walks.add(new Walk(b, shared ? SHARED_INDEX_BUDGET : window));
		}
		String what = "list " + state + " jobs of " + topic;
		// Rounds of one step per bucket still walking, pipelined: each script looks at no
		// more than STEP entries, so a deep page never holds Redis for long.
		for (int round = 0; round < MAX_ROUNDS; round++) {
			List<Walk> walking = walks.stream().filter((walk) -> !walk.done(window)).toList();
			if (walking.isEmpty()) {
				break;
			}
			List<CompletionStage<List<Object>>> replies = new ArrayList<>();
			for (Walk walk : walking) {
				replies.add(this.store.admin()
					.list(walk.bucket, topic, code, walk.next, Math.min(STEP, walk.budget),
							window - walk.found.size()));
			}
			for (int i = 0; i < walking.size(); i++) {
				walking.get(i).take(this.store.scripts().await(replies.get(i), what));
			}
		}
		List<Entry> entries = new ArrayList<>();
		walks.forEach((walk) -> entries.addAll(walk.found));
		Comparator<Entry> order = Comparator.comparingLong(Entry::score);
		if (state == JobState.DEAD) {
			order = order.reversed();
		}
		entries.sort(order.thenComparing(Entry::jobKey));
		List<Entry> page = entries.subList(Math.min(offset, entries.size()), Math.min(window, entries.size()));
		return describe(topic, state, page);
	}

	/** One job with its payload, or empty if no job of the topic has that id. */
	public Optional<JobView> find(String topic, String id) {
		String jobKey = KeySpace.jobKey(topic, id);
		int bucket = this.keys.bucketOf(jobKey);
		return this.store.scripts().await(this.store.find(bucket, jobKey), "find " + jobKey).flatMap((job) -> {
			long score = (job.state() == JobState.DEAD || job.state() == JobState.IN_FLIGHT) ? -1 : job.dueAt();
			List<JobView> views = describe(topic, job.state(), List.of(new Entry(bucket, jobKey, score)));
			return views.stream().findFirst();
		});
	}

	/**
	 * Reads the records of the given jobs, all pipelined: payload, attempt record, last
	 * error, and for IN_FLIGHT jobs found by id the lease deadline. Jobs gone meanwhile
	 * are left out.
	 */
	private List<JobView> describe(String topic, JobState state, List<Entry> entries) {
		RedisClusterAsyncCommands<String, String> commands = this.store.commands();
		record Reads(CompletionStage<String> payload, CompletionStage<String> attempt, CompletionStage<String> error,
				@Nullable CompletionStage<Double> lease) {
		}
		List<Reads> reads = new ArrayList<>(entries.size());
		for (Entry entry : entries) {
			int b = entry.bucket();
			boolean leaseUnknown = state == JobState.IN_FLIGHT && entry.score() < 0;
			reads.add(new Reads(commands.hget(this.keys.payloadKey(b), entry.jobKey()),
					commands.hget(this.keys.payloadKey(b), KeySpace.attemptField(entry.jobKey())),
					commands.hget(this.keys.errorKey(b), entry.jobKey()),
					leaseUnknown ? commands.zscore(this.keys.leaseKey(b), entry.jobKey()) : null));
		}
		String what = "read " + state + " jobs of " + topic;
		List<JobView> views = new ArrayList<>(entries.size());
		for (int i = 0; i < entries.size(); i++) {
			Entry entry = entries.get(i);
			Reads read = reads.get(i);
			String record = this.store.scripts().await(read.payload(), what);
			if (record == null) {
				continue; // finished, cancelled or purged between the two reads
			}
			String[] attempt = attemptParts(this.store.scripts().await(read.attempt(), what));
			String error = this.store.scripts().await(read.error(), what);
			long leaseDeadline = -1;
			String instance = null;
			if (state == JobState.IN_FLIGHT) {
				Double lease = (read.lease() != null) ? this.store.scripts().await(read.lease(), what) : null;
				leaseDeadline = (lease != null) ? lease.longValue() : entry.score();
				instance = instanceOf(attempt[2]);
			}
			boolean scoreIsDue = state == JobState.DELAYED || state == JobState.READY;
			long due = (scoreIsDue && entry.score() >= 0) ? entry.score() : Long.parseLong(attempt[1]);
			long created = CreatedTime.ofRecord(record);
			views.add(new JobView(topic, entry.jobKey().substring(topic.length() + 1), state, Instant.ofEpochMilli(due),
					Integer.parseInt(attempt[0]), Instant.ofEpochMilli(created), JobQueries.payloadOf(record), error,
					(leaseDeadline >= 0) ? Instant.ofEpochMilli(leaseDeadline) : null, instance));
		}
		return views;
	}

	/** The attempt record {@code <attempts>|<due ms>|<claim token>}, zeros if none. */
	private static String[] attemptParts(@Nullable String record) {
		return (record != null) ? record.split("\\|", 3) : new String[] { "0", "0", "" };
	}

	/** Claim tokens start with the claiming instance's id and a ':' (TopicConsumer). */
	private static @Nullable String instanceOf(String token) {
		int colon = token.indexOf(':');
		return (colon > 0) ? token.substring(0, colon) : null;
	}

	private static char codeOf(JobState state) {
		return switch (state) {
			case DELAYED -> 'D';
			case READY -> 'R';
			case IN_FLIGHT -> 'I';
			case DEAD -> 'X';
		};
	}

	/** Where the walk through one bucket's index stands. */
	private static final class Walk {

		private final int bucket;

		private final List<Entry> found = new ArrayList<>();

		/** Entries it may still look at. */
		private int budget;

		/** The rank of its next step, -1 once the index ended. */
		private long next;

		Walk(int bucket, int budget) {
			this.bucket = bucket;
			this.budget = budget;
		}

		boolean done(int window) {
			return this.next < 0 || this.budget <= 0 || this.found.size() >= window;
		}

		void take(List<Object> reply) {
			long from = this.next;
			this.next = ScriptReply.number(reply.get(0));
			this.budget -= (this.next >= 0) ? (int) (this.next - from) : STEP;
			for (int i = 1; i + 1 < reply.size(); i += 2) {
				this.found
					.add(new Entry(this.bucket, ScriptReply.text(reply.get(i)), ScriptReply.number(reply.get(i + 1))));
			}
		}

	}

	/** One index entry: the bucket it came from, its member and its score. */
	private record Entry(int bucket, String jobKey, long score) {
	}

}
