package io.redeq.test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * One node's view of the cluster, parsed from {@code CLUSTER NODES}: which node is master
 * or replica, of whom, with which slots, and which ones it thinks have failed.
 *
 * <p>
 * {@link #normalized()} drops what legitimately differs between nodes (the {@code myself}
 * flag, ping times, link state), so two nodes agree exactly when their normalized views
 * are equal.
 */
final class ClusterNodes {

	private final List<Entry> entries;

	private ClusterNodes(List<Entry> entries) {
		this.entries = entries;
	}

	/**
	 * Parses lines of
	 * {@code <id> <ip:port@cport> <flags> <master> <ping> <pong> <epoch> <link> <slots...>}.
	 */
	static ClusterNodes parse(String clusterNodes) {
		List<Entry> entries = new ArrayList<>();
		for (String line : clusterNodes.split("\n")) {
			String[] fields = line.trim().split(" ");
			if (fields.length < 8) {
				continue;
			}
			String address = fields[1].split("[@,]")[0];
			int port = Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
			Set<String> flags = new TreeSet<>(Arrays.asList(fields[2].split(",")));
			flags.remove("myself");
			List<String> slots = Arrays.asList(fields).subList(8, fields.length);
			entries.add(new Entry(fields[0], port, flags, fields[3], slots));
		}
		return new ClusterNodes(entries);
	}

	/** The view as sorted lines of id, port, flags, master id and slots. */
	String normalized() {
		return this.entries.stream()
			.map((entry) -> entry.id() + " " + entry.port() + " " + entry.flags() + " " + entry.masterId() + " "
					+ entry.slots())
			.sorted()
			.collect(Collectors.joining("\n"));
	}

	/**
	 * Ports of the nodes with the given role ({@code master} or {@code slave}) not
	 * flagged as failed.
	 */
	List<Integer> ports(String role) {
		return this.entries.stream()
			.filter((entry) -> entry.flags().contains(role))
			.filter((entry) -> !entry.flags().contains("fail") && !entry.flags().contains("fail?"))
			.map(Entry::port)
			.sorted()
			.collect(Collectors.toList());
	}

	/**
	 * The port of the master that serves {@code slot}, by the ranges this view lists
	 * ({@code 0-5460}, {@code 5461}); the {@code [slot->-id]} and {@code [slot-<-id]}
	 * entries of an open migration do not change the owner.
	 * @throws IllegalStateException if no master lists the slot
	 */
	int ownerPort(int slot) {
		for (Entry entry : this.entries) {
			if (!entry.flags().contains("master")) {
				continue;
			}
			for (String range : entry.slots()) {
				if (range.startsWith("[")) {
					continue;
				}
				int dash = range.indexOf('-');
				int from = Integer.parseInt((dash < 0) ? range : range.substring(0, dash));
				int to = (dash < 0) ? from : Integer.parseInt(range.substring(dash + 1));
				if (slot >= from && slot <= to) {
					return entry.port();
				}
			}
		}
		throw new IllegalStateException("No master serves slot " + slot + " in:\n" + normalized());
	}

	/** The node id of the node listening on {@code port}. */
	String idOf(int port) {
		return this.entries.stream()
			.filter((entry) -> entry.port() == port)
			.map(Entry::id)
			.findFirst()
			.orElseThrow(() -> new IllegalArgumentException("No node on port " + port + " in:\n" + normalized()));
	}

	/**
	 * Whether this view (of the node that sent it) lists {@code slot} as migrating to or
	 * importing from another node.
	 */
	boolean isOpen(int slot) {
		return this.entries.stream()
			.flatMap((entry) -> entry.slots().stream())
			.anyMatch((range) -> range.startsWith("[" + slot + "->-") || range.startsWith("[" + slot + "-<-"));
	}

	/** One line of {@code CLUSTER NODES}. */
	record Entry(String id, int port, Set<String> flags, String masterId, List<String> slots) {
	}

}
