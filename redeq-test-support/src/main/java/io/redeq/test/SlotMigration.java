package io.redeq.test;

import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * One cluster slot caught in the middle of a move, as {@code redis-cli --cluster reshard}
 * leaves it between two of its steps: the source master is MIGRATING the slot, the target
 * is IMPORTING it, and the slot's keys are wherever {@link #migrate(Collection)} put
 * them. Clients are served by the source for keys it still has and redirected with
 * {@code -ASK} (or refused with {@code -TRYAGAIN}) for the others.
 *
 * <pre>{@code
 * SlotMigration migration = cluster.openSlotMigration(slot, otherMaster);
 * migration.migrate(someKeys);          // now the slot's keys are split over two nodes
 * ...                                   // let clients work
 * migration.finish(false);              // move the rest, assign the slot to the target
 * }</pre>
 *
 * Made by {@link RedisCluster#openSlotMigration(int, RedisServer)}.
 */
public final class SlotMigration {

	private static final String MIGRATE_TIMEOUT_MILLIS = "5000";

	private static final int FINISH_ROUNDS = 20;

	private final RedisCluster cluster;

	private final int slot;

	private final RedisServer source;

	private final RedisServer target;

	SlotMigration(RedisCluster cluster, int slot, RedisServer source, RedisServer target) {
		this.cluster = cluster;
		this.slot = slot;
		this.source = source;
		this.target = target;
	}

	public int slot() {
		return this.slot;
	}

	/** The master the slot is moving away from (MIGRATING). */
	public RedisServer source() {
		return this.source;
	}

	/** The master the slot is moving to (IMPORTING). */
	public RedisServer target() {
		return this.target;
	}

	/**
	 * The keys of the slot that {@code node} holds now ({@code CLUSTER GETKEYSINSLOT}).
	 */
	public List<String> keysOn(RedisServer node) {
		return node.callForList("CLUSTER", "GETKEYSINSLOT", String.valueOf(this.slot), "100000");
	}

	/**
	 * Moves the given keys of the slot from the source to the target with
	 * {@code MIGRATE}, one command per key, as redis-cli does with
	 * {@code --cluster-pipeline 1}. A key the source no longer holds is skipped (MIGRATE
	 * answers NOKEY).
	 * @throws IllegalStateException if the target already holds one of the keys (BUSYKEY)
	 */
	public void migrate(Collection<String> keys) {
		for (String key : keys) {
			String reply = migrateKey(key, false);
			if (reply != null && reply.contains("BUSYKEY")) {
				throw new IllegalStateException("Key '" + key + "' of slot " + this.slot + " exists on both "
						+ this.source + " and " + this.target + ": " + reply);
			}
		}
	}

	/**
	 * Whether both nodes still have the slot open (MIGRATING on the source, IMPORTING on
	 * the target), as each sees itself.
	 */
	public boolean isOpen() {
		return ClusterNodes.parse(this.source.call("CLUSTER", "NODES")).isOpen(this.slot)
				&& ClusterNodes.parse(this.target.call("CLUSTER", "NODES")).isOpen(this.slot);
	}

	/**
	 * Completes the move as {@code redis-cli --cluster fix} would: moves every key the
	 * source still holds, then assigns the slot to the target ({@code SETSLOT NODE}) on
	 * the target, the source and every other master, and waits until all nodes agree.
	 *
	 * <p>
	 * A key that the target already holds as well (BUSYKEY) means a client wrote it on
	 * the importing node while the source still had it: the slot's data is split and one
	 * of the two copies must go. redis-cli stops there unless told
	 * {@code --cluster-replace}; so does this method unless {@code replaceBusyKeys}, in
	 * which case the source's copy overwrites the target's, as {@code --cluster-replace}
	 * does.
	 * @return the keys that existed on both nodes (empty unless {@code replaceBusyKeys})
	 * @throws IllegalStateException on a key held by both nodes without
	 * {@code replaceBusyKeys}, or if the slot cannot be closed
	 */
	public List<String> finish(boolean replaceBusyKeys) {
		List<String> onBoth = new ArrayList<>();
		for (int round = 0; round < FINISH_ROUNDS; round++) {
			for (String key : keysOn(this.source)) {
				String reply = migrateKey(key, false);
				if (reply != null && reply.contains("BUSYKEY")) {
					if (!replaceBusyKeys) {
						throw new IllegalStateException("Cannot finish moving slot " + this.slot + ": key '" + key
								+ "' exists on both " + this.source + " and " + this.target + " (" + reply
								+ "); a client wrote it on the importing node while the migrating node still held it");
					}
					onBoth.add(key);
					migrateKey(key, true);
				}
			}
			String targetId = this.cluster.nodeId(this.target);
			this.target.call("CLUSTER", "SETSLOT", String.valueOf(this.slot), "NODE", targetId);
			try {
				// Refused while the source still holds keys of the slot: a client may
				// have written one since we listed them. Then move again.
				this.source.call("CLUSTER", "SETSLOT", String.valueOf(this.slot), "NODE", targetId);
			}
			catch (UncheckedIOException ex) {
				if (!keysOn(this.source).isEmpty()) {
					continue;
				}
				throw ex;
			}
			for (RedisServer master : this.cluster.masters()) {
				if (master.port() != this.source.port() && master.port() != this.target.port()) {
					master.call("CLUSTER", "SETSLOT", String.valueOf(this.slot), "NODE", targetId);
				}
			}
			this.cluster.awaitHealthy(Duration.ofSeconds(30));
			return onBoth;
		}
		throw new IllegalStateException("Slot " + this.slot + " still has keys on " + this.source + " after "
				+ FINISH_ROUNDS + " rounds of MIGRATE: " + keysOn(this.source));
	}

	/** MIGRATE one key; returns null on success, or the error text. */
	private String migrateKey(String key, boolean replace) {
		List<String> command = new ArrayList<>(List.of("MIGRATE", this.target.host(),
				String.valueOf(this.target.port()), key, "0", MIGRATE_TIMEOUT_MILLIS));
		if (replace) {
			command.add("REPLACE");
		}
		try {
			// OK, or NOKEY if gone meanwhile.
			this.source.call(command.toArray(String[]::new));
			return null;
		}
		catch (UncheckedIOException ex) {
			String message = String.valueOf(ex.getCause().getMessage());
			if (replace || !message.contains("BUSYKEY")) {
				throw new IllegalStateException(
						"MIGRATE of '" + key + "' from " + this.source + " to " + this.target + " failed: " + message,
						ex);
			}
			return message;
		}
	}

	@Override
	public String toString() {
		return "SlotMigration[slot " + this.slot + " " + this.source + " -> " + this.target + "]";
	}

}
