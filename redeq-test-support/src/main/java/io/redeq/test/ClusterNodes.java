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

	/** One line of {@code CLUSTER NODES}. */
	record Entry(String id, int port, Set<String> flags, String masterId, List<String> slots) {
	}

}
