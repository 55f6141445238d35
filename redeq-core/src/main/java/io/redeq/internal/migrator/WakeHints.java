package io.redeq.internal.migrator;

/**
 * What the {@link Migrator} needs of the channel on which instances wake a bucket's owner
 * ({@link WakeChannel} on Redis pub/sub): every call is a hint that may be lost.
 */
interface WakeHints extends AutoCloseable {

	/** Asks the owner of {@code bucket}, whoever it is, to migrate it now. */
	void publish(int bucket, long dueAtMillis);

	/**
	 * Starts listening for other instances' wake-ups, unless it does already.
	 * @throws io.redeq.RedeqUnavailableException if Redis does not confirm in time
	 */
	void subscribe();

	/** Stops listening. */
	@Override
	void close();

}
