package io.redeq.spring.internal.journal;

import org.jspecify.annotations.Nullable;

/**
 * One marker per bucket of redeq's Redis data, kept in the bucket's own hash slot, that
 * only the journal writes: a bucket whose marker is gone lost its data (a restart without
 * persistence, a failover to a replica that had not received it, a cluster master
 * flushed) or was never marked. On Redis Cluster the buckets spread over the masters, so
 * the loss of any one master's data shows.
 *
 * <p>
 * A lost bucket's marker goes through a <em>loss generation</em>: the first recoverer
 * creates it, every later or concurrent one reads the same, and the journal records in
 * each row it restored the generation it was restored in; so no row is restored twice for
 * one loss. The marker is back once the bucket's recovery is complete.
 */
public interface RedisMarker {

	/** What a bucket's marker says. */
	enum State {

		/** The bucket holds its data as far as the journal knows. */
		PRESENT,

		/** No marker: the bucket lost its data, or was never marked. */
		ABSENT,

		/** A recovery of the bucket's loss started and has not finished. */
		RECOVERING

	}

	/**
	 * The markers of the bucket layout the engine runs on now, for one check or recovery:
	 * its buckets, their markers and the bucket of each job all belong to one bucket
	 * count, even if the engine follows a change of the count meanwhile.
	 * @return the markers of the current layout (this one, when the count never changes)
	 */
	default RedisMarker onCurrentLayout() {
		return this;
	}

	/**
	 * How many buckets there are.
	 * @return the bucket count
	 */
	int buckets();

	/**
	 * The bucket a job is stored in.
	 * @param topic the job's topic
	 * @param id the job's id
	 * @return its bucket
	 */
	int bucketOf(String topic, String id);

	/**
	 * Reads every bucket's marker.
	 * @return the state of each bucket, indexed by bucket
	 * @throws RuntimeException if Redis cannot be reached
	 */
	State[] read();

	/**
	 * The generation of a bucket's loss: the one a recoverer created before, or
	 * {@code candidate}, recorded now, when there is none.
	 * @param bucket the bucket
	 * @param candidate a fresh, unique id
	 * @return the generation, or null if the bucket's marker is present (nothing to do)
	 */
	@Nullable String lossGeneration(int bucket, String candidate);

	/**
	 * Marks the bucket as holding its data again, once every pending row was handled in
	 * the generation; does nothing if the bucket lost its data again meanwhile.
	 * @param bucket the bucket
	 * @param generation the loss generation it was recovered in
	 * @return whether the marker was set
	 */
	boolean markRecovered(int bucket, String generation);

	/**
	 * Marks a bucket that had nothing to recover (new, or never marked); never replaces
	 * the generation of a recovery under way.
	 * @param bucket the bucket
	 */
	void markUnharmed(int bucket);

}
