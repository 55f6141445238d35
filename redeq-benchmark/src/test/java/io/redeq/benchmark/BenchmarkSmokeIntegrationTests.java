package io.redeq.benchmark;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs every workload at smoke size against the benchmark's own redis-server, so the
 * benchmark cannot rot: each RESULT line is there, and no job was lost or doubled.
 */
class BenchmarkSmokeIntegrationTests {

	@Test
	@Timeout(120)
	void everyWorkloadRunsAtSmokeSizeAndLosesNothing() {
		ByteArrayOutputStream bytes = new ByteArrayOutputStream();
		int status;
		try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
			status = Benchmark.run(out, "--smoke");
		}
		String output = bytes.toString(StandardCharsets.UTF_8);
		System.out.println(output);
		List<String> results = Arrays.stream(output.split("\n")).filter((l) -> l.startsWith("RESULT ")).toList();

		assertThat(output).contains("MACHINE cores=").contains("JDK version=").contains("REDIS version=");
		assertThat(results).noneMatch((l) -> l.contains(" error="));
		assertThat(results)
			.anyMatch((l) -> l.startsWith("RESULT workload=W1 mode=single ") && l.contains(" jobs=2000 "));
		assertThat(results)
			.anyMatch((l) -> l.startsWith("RESULT workload=W1 mode=batch ") && l.contains(" jobs=2000 "));
		assertThat(results).anyMatch((l) -> l.startsWith("RESULT workload=W2 jobs=2000 consumers=4 jobs_per_s="));
		assertThat(results).anyMatch((l) -> l.startsWith("RESULT workload=W3 rate=") && l.contains(" p99_ms="));
		assertThat(results).anyMatch((l) -> l.startsWith("RESULT workload=W3b rate=") && l.contains(" p99_ms="));
		assertThat(results)
			.anyMatch((l) -> l.startsWith("RESULT workload=W4 jobs=2000 ") && l.contains(" bytes_per_job="));
		assertThat(results)
			.anyMatch((l) -> l.startsWith("RESULT workload=W5 listeners=4 ") && l.contains(" commands_per_s="));
		assertThat(results.stream().filter((l) -> !l.startsWith("RESULT workload=W5 "))).hasSize(6)
			.allMatch((l) -> l.contains(" missing=0 dup=0"), "missing=0 dup=0");
		assertThat(status).isZero();
	}

}
