package io.redeq;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * redeq-core's sources never use Java native (de)serialisation or Jackson polymorphic
 * typing driven by data: no ObjectInputStream, no readObject, no default typing,
 * no @JsonTypeInfo.
 */
class NoJavaDeserialisationTests {

	private static final Pattern FORBIDDEN = Pattern.compile(
			"ObjectInputStream|ObjectOutputStream|readObject\\s*\\(|readUnshared|XMLDecoder|activateDefaultTyping|enableDefaultTyping|"
					+ "DefaultTyping|@JsonTypeInfo|PolymorphicTypeValidator|SerializationUtils");

	@Test
	void mainSourcesUseNeitherJavaSerialisationNorPolymorphicTyping() throws IOException {
		Path sources = Path.of("src/main/java");
		assertThat(sources).isDirectory();
		List<String> offending;
		List<Path> files;
		try (Stream<Path> walk = Files.walk(sources)) {
			files = walk.filter((path) -> path.toString().endsWith(".java")).collect(Collectors.toList());
		}
		assertThat(files).hasSizeGreaterThan(30);
		offending = files.stream().flatMap((file) -> {
			try {
				List<String> lines = Files.readAllLines(file);
				return java.util.stream.IntStream.range(0, lines.size())
					.filter((i) -> FORBIDDEN.matcher(lines.get(i)).find())
					.mapToObj((i) -> file + ":" + (i + 1) + ": " + lines.get(i).trim());
			}
			catch (IOException ex) {
				throw new java.io.UncheckedIOException(ex);
			}
		}).collect(Collectors.toList());
		assertThat(offending).as("Java serialisation or polymorphic typing in redeq-core").isEmpty();
	}

}
