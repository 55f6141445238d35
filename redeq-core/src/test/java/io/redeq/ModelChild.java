package io.redeq;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

import io.lettuce.core.RedisClient;

/**
 * An engine of {@link ModelIntegrationTests} in a JVM of its own, so that the test can
 * SIGKILL and SIGSTOP it. It records every handler invocation in a file (one line per
 * start and end, appended with a single write), which outlives both the process and any
 * Redis restart.
 *
 * <p>
 * Arguments: redis URI, instance id, log file.
 */
public final class ModelChild {

	private ModelChild() {
	}

	public static void main(String[] args) throws Exception {
		RedisClient client = RedisClient.create(args[0]);
		try (FileRecorder recorder = new FileRecorder(args[2]);
				Redeq redeq = ModelWorkload.start(client, args[1], recorder)) {
			ModelWorkload.watchStalls((from, to) -> recorder.stalled(args[1], from, to));
			System.out.println("READY " + args[1]);
			new CountDownLatch(1).await(); // until killed
		}
	}

	/**
	 * Appends {@code S engine n topic id nonce attempt nanos},
	 * {@code E engine n nanos outcome} and {@code P engine from to} (a stall) lines.
	 */
	static final class FileRecorder implements ModelWorkload.Recorder, AutoCloseable {

		private final FileOutputStream out;

		private final AtomicLong invocations = new AtomicLong();

		FileRecorder(String path) throws IOException {
			this.out = new FileOutputStream(path, true);
		}

		@Override
		public long started(String engine, Delivery delivery, String nonce, long nanos) {
			long invocation = this.invocations.incrementAndGet();
			write("S " + engine + " " + invocation + " " + delivery.topic() + " " + delivery.id() + " " + nonce + " "
					+ delivery.attempt() + " " + nanos);
			return invocation;
		}

		@Override
		public void ended(String engine, long invocation, long nanos, String outcome) {
			write("E " + engine + " " + invocation + " " + nanos + " " + outcome);
		}

		void stalled(String engine, long from, long to) {
			write("P " + engine + " " + from + " " + to);
		}

		private synchronized void write(String line) {
			try {
				this.out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}

		@Override
		public void close() throws IOException {
			this.out.close();
		}

	}

}
