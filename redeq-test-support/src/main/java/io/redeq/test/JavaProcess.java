package io.redeq.test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A second JVM running a test main class with this JVM's classpath: the "other instance"
 * of crash and clock-skew tests. Its output lines are collected so a test can wait for
 * what it prints, and {@link #kill()} ends it with SIGKILL, as a crash would.
 */
public final class JavaProcess implements AutoCloseable {

	private static final List<String> FAKETIME_LIBRARIES = List.of(
			"/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
			"/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1", "/usr/lib/faketime/libfaketime.so.1",
			"/usr/local/lib/faketime/libfaketime.so.1");

	private final Process process;

	private final List<String> lines = new CopyOnWriteArrayList<>();

	private JavaProcess(Process process) {
		this.process = process;
		Thread reader = new Thread(this::readOutput, "java-process-" + process.pid());
		reader.setDaemon(true);
		reader.start();
	}

	/** Starts {@code mainClass} with the given arguments. */
	public static JavaProcess start(Class<?> mainClass, String... args) {
		return start(mainClass, Map.of(), args);
	}

	/** Starts {@code mainClass} with extra environment variables. */
	public static JavaProcess start(Class<?> mainClass, Map<String, String> environment, String... args) {
		String java = ProcessHandle.current().info().command().orElse("java");
		List<String> command = new ArrayList<>(List.of(java, "-Xmx256m", "-XX:+UseSerialGC", "-cp",
				System.getProperty("java.class.path"), mainClass.getName()));
		command.addAll(List.of(args));
		ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
		builder.environment().putAll(environment);
		try {
			JavaProcess started = new JavaProcess(builder.start());
			Runtime.getRuntime().addShutdownHook(new Thread(started.process::destroyForcibly));
			return started;
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not start " + command, ex);
		}
	}

	/**
	 * Environment that shifts a child JVM's wall clock by {@code offset} with
	 * libfaketime, leaving its monotonic clock alone (the JVM needs that one to be real).
	 * @throws IllegalStateException naming the package to install if libfaketime is
	 * missing
	 */
	public static Map<String, String> clockOffset(Duration offset) {
		Optional<String> library = FAKETIME_LIBRARIES.stream()
			.filter((path) -> Files.isReadable(Path.of(path)))
			.findFirst();
		if (library.isEmpty()) {
			throw new IllegalStateException("Shifting a JVM's clock needs libfaketime, which is not installed: "
					+ "sudo apt-get install libfaketime (Debian/Ubuntu) or brew install libfaketime (macOS)");
		}
		Map<String, String> environment = new HashMap<>();
		environment.put("LD_PRELOAD", library.get());
		environment.put("FAKETIME", (offset.isNegative() ? "-" : "+") + Math.abs(offset.toSeconds()) + "s");
		environment.put("FAKETIME_DONT_FAKE_MONOTONIC", "1");
		return environment;
	}

	private void readOutput() {
		try (BufferedReader reader = new BufferedReader(
				new InputStreamReader(this.process.getInputStream(), StandardCharsets.UTF_8))) {
			String line;
			while ((line = reader.readLine()) != null) {
				this.lines.add(line);
			}
		}
		catch (IOException ex) {
			// the process ended
		}
	}

	/** Waits for a line matching {@code predicate} and returns it. */
	public String awaitLine(Predicate<String> predicate, Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (System.nanoTime() < deadline) {
			for (String line : this.lines) {
				if (predicate.test(line)) {
					return line;
				}
			}
			if (!this.process.isAlive() && this.lines.stream().noneMatch(predicate)) {
				throw new IllegalStateException("Process " + pid() + " exited with " + this.process.exitValue()
						+ " before printing the expected line. Output:\n" + String.join("\n", this.lines));
			}
			try {
				this.process.waitFor(20, TimeUnit.MILLISECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted", ex);
			}
		}
		throw new IllegalStateException("Process " + pid() + " did not print the expected line within " + timeout
				+ ". Output:\n" + String.join("\n", this.lines));
	}

	/** Everything printed so far. */
	public List<String> lines() {
		return List.copyOf(this.lines);
	}

	public long pid() {
		return this.process.pid();
	}

	public boolean isAlive() {
		return this.process.isAlive();
	}

	/** SIGKILL, as a crash would: no shutdown hook or finally block runs in the child. */
	public void kill() {
		this.process.destroyForcibly();
		waitForExit(Duration.ofSeconds(10));
	}

	/** Waits for the child to exit by itself; returns its exit code. */
	public int waitForExit(Duration timeout) {
		try {
			if (!this.process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
				throw new IllegalStateException("Process " + pid() + " still runs after " + timeout);
			}
			return this.process.exitValue();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted", ex);
		}
	}

	@Override
	public void close() {
		if (this.process.isAlive()) {
			kill();
		}
	}

}
