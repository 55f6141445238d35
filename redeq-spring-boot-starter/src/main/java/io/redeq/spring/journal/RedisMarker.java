package io.redeq.spring.journal;

/**
 * A key redeq keeps in Redis for as long as Redis keeps its data: when it is gone while
 * the journal holds pending jobs, Redis lost its data (a restart without persistence, a
 * failover to a replica that had not received it).
 */
public interface RedisMarker {

	/**
	 * Whether the marker is in Redis.
	 * @return false if Redis lost it
	 * @throws RuntimeException if Redis cannot be reached
	 */
	boolean isPresent();

	/**
	 * Writes the marker again, after a recovery or when it is found missing for no loss.
	 */
	void restore();

}
