package io.redeq;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Every handler invocation of a model run, from the engines in this JVM (recorded
 * directly) and from child JVMs (read from the files they append to).
 */
final class InvocationLog implements ModelWorkload.Recorder {

	/** End time of an invocation that has not ended (yet). */
	static final long OPEN = Long.MAX_VALUE;

	private final Map<String, Invocation> invocations = new ConcurrentHashMap<>();

	private final Map<String, List<Invocation>> byJob = new ConcurrentHashMap<>();

	private final Map<Path, Long> files = new LinkedHashMap<>();

	private final Map<String, Long> sequences = new ConcurrentHashMap<>();

	private final StallSink stalls;

	/**
	 * @param stalls told about the stalls children report
	 */
	InvocationLog(StallSink stalls) {
		this.stalls = stalls;
	}

	@Override
	public long started(String engine, Delivery delivery, String nonce, long nanos) {
		long number = this.sequences.merge(engine, 1L, Long::sum);
		add(new Invocation(engine, number, delivery.topic(), delivery.id(), nonce, delivery.attempt(), nanos));
		return number;
	}

	@Override
	public void ended(String engine, long invocation, long nanos, String outcome) {
		Invocation started = this.invocations.get(engine + "#" + invocation);
		if (started != null) {
			started.end(nanos, outcome);
		}
	}

	private void add(Invocation invocation) {
		this.invocations.put(invocation.key(), invocation);
		List<Invocation> list = this.byJob.computeIfAbsent(invocation.topic() + "/" + invocation.id(),
				(k) -> new ArrayList<>());
		synchronized (list) {
			list.add(invocation);
		}
	}

	/** Reads what child JVMs appended to {@code file} from now on. */
	synchronized void follow(Path file) {
		this.files.put(file, 0L);
	}

	/** Reads the complete lines the children appended since the last call. */
	synchronized void refresh() {
		for (Map.Entry<Path, Long> entry : this.files.entrySet()) {
			try (RandomAccessFile file = new RandomAccessFile(entry.getKey().toFile(), "r")) {
				long offset = entry.getValue();
				long length = file.length();
				if (length <= offset) {
					continue;
				}
				byte[] bytes = new byte[(int) (length - offset)];
				file.seek(offset);
				file.readFully(bytes);
				int lastNewline = -1;
				for (int i = bytes.length - 1; i >= 0; i--) {
					if (bytes[i] == '\n') {
						lastNewline = i;
						break;
					}
				}
				if (lastNewline < 0) {
					continue;
				}
				String text = new String(bytes, 0, lastNewline, StandardCharsets.UTF_8);
				for (String line : text.split("\n")) {
					parse(line);
				}
				entry.setValue(offset + lastNewline + 1);
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}
	}

	private void parse(String line) {
		String[] f = line.split(" ");
		if (f[0].equals("S") && f.length == 8) {
			add(new Invocation(f[1], Long.parseLong(f[2]), f[3], f[4], f[5], Integer.parseInt(f[6]),
					Long.parseLong(f[7])));
		}
		else if (f[0].equals("E") && f.length == 5) {
			ended(f[1], Long.parseLong(f[2]), Long.parseLong(f[3]), f[4]);
		}
		else if (f[0].equals("P") && f.length == 4) {
			this.stalls.stalled(f[1], Long.parseLong(f[2]), Long.parseLong(f[3]));
		}
	}

	/**
	 * Ends every open invocation of a killed engine at {@code nanos}: nothing of it runs
	 * after its process died.
	 */
	void endOpen(String engine, long nanos, String outcome) {
		for (Invocation invocation : all()) {
			if (invocation.engine().equals(engine) && invocation.isOpen()) {
				invocation.end(nanos, outcome);
			}
		}
	}

	/** Invocations of one job, by start time. */
	List<Invocation> of(String topic, String id) {
		List<Invocation> list = this.byJob.get(topic + "/" + id);
		if (list == null) {
			return List.of();
		}
		List<Invocation> copy;
		synchronized (list) {
			copy = new ArrayList<>(list);
		}
		copy.sort(Comparator.comparingLong(Invocation::startNanos));
		return copy;
	}

	List<Invocation> all() {
		List<Invocation> copy = new ArrayList<>(this.invocations.values());
		copy.sort(Comparator.comparingLong(Invocation::startNanos));
		return copy;
	}

	/** Open invocations of the given engines. */
	List<Invocation> open(List<String> engines) {
		return all().stream().filter((i) -> i.isOpen() && engines.contains(i.engine())).toList();
	}

	/** Where the stalls of child JVMs go. */
	interface StallSink {

		void stalled(String engine, long from, long to);

	}

	/** One handler invocation: which job, which payload, which attempt, when. */
	static final class Invocation {

		private final String engine;

		private final long number;

		private final String topic;

		private final String id;

		private final String nonce;

		private final int attempt;

		private final long startNanos;

		private volatile long endNanos = OPEN;

		private volatile String outcome = "running";

		Invocation(String engine, long number, String topic, String id, String nonce, int attempt, long startNanos) {
			this.engine = engine;
			this.number = number;
			this.topic = topic;
			this.id = id;
			this.nonce = nonce;
			this.attempt = attempt;
			this.startNanos = startNanos;
		}

		synchronized void end(long nanos, String outcome) {
			if (this.endNanos == OPEN) {
				this.endNanos = nanos;
				this.outcome = outcome;
			}
		}

		String key() {
			return this.engine + "#" + this.number;
		}

		String engine() {
			return this.engine;
		}

		String topic() {
			return this.topic;
		}

		String id() {
			return this.id;
		}

		String nonce() {
			return this.nonce;
		}

		int attempt() {
			return this.attempt;
		}

		long startNanos() {
			return this.startNanos;
		}

		long endNanos() {
			return this.endNanos;
		}

		String outcome() {
			return this.outcome;
		}

		boolean isOpen() {
			return this.endNanos == OPEN;
		}

		long durationNanos() {
			return this.endNanos - this.startNanos;
		}

	}

}
