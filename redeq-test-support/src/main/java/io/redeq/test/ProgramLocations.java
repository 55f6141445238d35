package io.redeq.test;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Where the test support looks for the programs tests run: the {@code PATH}, then the
 * directories Debian and Homebrew install them in, so that a build started from an IDE
 * (whose {@code PATH} may lack {@code /opt/homebrew/bin}) or on a Debian machine whose
 * PostgreSQL lives in {@code /usr/lib/postgresql/<version>/bin} finds them too. The
 * server classes and {@link TestPrerequisites} ask the same instance, so the build's
 * check and the tests agree on what is installed.
 *
 * <p>
 * The usual directories are resolved against a root ({@code /} on a real machine, an
 * empty directory in the tests of the lookups themselves).
 */
final class ProgramLocations {

	/** Where Homebrew links the programs of its formulae (Apple silicon, then Intel). */
	static final List<String> HOMEBREW_BINS = List.of("opt/homebrew/bin", "usr/local/bin");

	private static final Pattern VERSION = Pattern.compile("(\\d{1,6})");

	private final Map<String, String> env;

	private final Path root;

	ProgramLocations(Map<String, String> env, Path root) {
		this.env = env;
		this.root = root;
	}

	/** This machine: its environment and its file system. */
	static ProgramLocations system() {
		return new ProgramLocations(System.getenv(), Path.of("/"));
	}

	/** The value of an environment variable, or null when unset or blank. */
	String env(String name) {
		String value = this.env.get(name);
		return (value != null && !value.isBlank()) ? value : null;
	}

	/**
	 * The first executable called {@code program} on the {@code PATH}, else in the given
	 * usual directories (relative to the root), in order.
	 */
	Optional<Path> find(String program, List<String> usualDirs) {
		Optional<Path> onPath = onPath(program);
		if (onPath.isPresent()) {
			return onPath;
		}
		return usualDirs.stream()
			.map((dir) -> this.root.resolve(dir).resolve(program))
			.filter(ProgramLocations::isProgram)
			.findFirst();
	}

	/** The first executable called {@code program} on the {@code PATH}. */
	Optional<Path> onPath(String program) {
		String path = this.env.get("PATH");
		if (path == null) {
			return Optional.empty();
		}
		for (String dir : path.split(File.pathSeparator)) {
			if (!dir.isEmpty()) {
				Path candidate = Path.of(dir, program);
				if (isProgram(candidate)) {
					return Optional.of(candidate);
				}
			}
		}
		return Optional.empty();
	}

	/**
	 * The {@code bin} directories of the versioned installs under a parent directory
	 * (relative to the root) whose names match a glob, newest version (the first number
	 * in the name) first: {@code usr/lib/postgresql} with {@code *} finds Debian's
	 * {@code 15/bin} and {@code 17/bin}, {@code opt/homebrew/opt} with
	 * {@code postgresql@*} finds Homebrew's {@code postgresql@17/bin}.
	 */
	List<Path> versionedBins(String parent, String glob) {
		Path dir = this.root.resolve(parent);
		if (!Files.isDirectory(dir)) {
			return List.of();
		}
		PathMatcher names = FileSystems.getDefault().getPathMatcher("glob:" + glob);
		try (Stream<Path> versions = Files.list(dir)) {
			return versions.filter((version) -> names.matches(version.getFileName()))
				.sorted(Comparator.comparing(ProgramLocations::version).reversed())
				.map((version) -> version.resolve("bin"))
				.toList();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not list " + dir, ex);
		}
	}

	/** A path relative to the root, for programs found at one fixed place. */
	Path at(String relative) {
		return this.root.resolve(relative);
	}

	static boolean isProgram(Path candidate) {
		return Files.isRegularFile(candidate) && Files.isExecutable(candidate);
	}

	private static int version(Path install) {
		Matcher number = VERSION.matcher(install.getFileName().toString());
		return number.find() ? Integer.parseInt(number.group(1)) : 0;
	}

}
