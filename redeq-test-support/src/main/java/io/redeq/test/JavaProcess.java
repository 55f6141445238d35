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
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

/**
 * A second JVM running a test main class with this JVM's classpath: the "other instance"
 * of crash and clock-skew tests. Its output lines are collected so a test can wait for
 * what it prints; {@link #kill()} ends it with SIGKILL, as a crash would, and
 * {@link #terminate(Duration)} with SIGTERM, as a graceful stop would.
 */
public final class JavaProcess implements AutoCloseable {

	private static Path agentJar;

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
		return start(mainClass, List.of(), args);
	}

	/**
	 * Starts {@code mainClass} in a JVM whose wall clock is {@code offset} off: what
	 * {@code System.currentTimeMillis()}, {@code Instant.now()} and every
	 * {@code java.time.Clock.system*} clock answer, in the JDK and in every library, is
	 * shifted by {@link ClockShiftAgent}; {@code System.nanoTime()} stays real.
	 * @throws IllegalArgumentException if the offset is not a whole number of seconds
	 */
	public static JavaProcess startWithClockOffset(Class<?> mainClass, Duration offset, String... args) {
		if (offset.getNano() != 0) {
			throw new IllegalArgumentException("A clock offset must be whole seconds, not " + offset);
		}
		return start(mainClass, List.of("-javaagent:" + agentJar() + "=" + offset.getSeconds()), args);
	}

	private static JavaProcess start(Class<?> mainClass, List<String> jvmOptions, String... args) {
		String java = ProcessHandle.current().info().command().orElse("java");
		List<String> command = new ArrayList<>(List.of(java, "-Xmx256m", "-XX:+UseSerialGC"));
		command.addAll(jvmOptions);
		command.addAll(List.of("-cp", System.getProperty("java.class.path"), mainClass.getName()));
		command.addAll(List.of(args));
		ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
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
	 * A jar holding only the manifest that names {@link ClockShiftAgent}: the agent's
	 * classes (and ASM) reach the child through its classpath, which is this JVM's.
	 */
	private static synchronized Path agentJar() {
		if (agentJar == null) {
			Manifest manifest = new Manifest();
			Attributes attributes = manifest.getMainAttributes();
			attributes.put(Attributes.Name.MANIFEST_VERSION, "1.0");
			attributes.put(new Attributes.Name("Premain-Class"), ClockShiftAgent.class.getName());
			attributes.put(new Attributes.Name("Can-Retransform-Classes"), "true");
			try {
				Path jar = Files.createTempFile("redeq-clock-shift-agent", ".jar");
				jar.toFile().deleteOnExit();
				try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar), manifest)) {
					out.flush();
				}
				agentJar = jar;
			}
			catch (IOException ex) {
				throw new UncheckedIOException("Could not write the clock-shift agent's jar", ex);
			}
		}
		return agentJar;
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

	/**
	 * SIGTERM, as a service manager or {@code kill} stops a process: the child's shutdown
	 * hooks run. Waits up to {@code timeout} for it to exit and returns its exit code.
	 */
	public int terminate(Duration timeout) {
		this.process.destroy();
		return waitForExit(timeout);
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
