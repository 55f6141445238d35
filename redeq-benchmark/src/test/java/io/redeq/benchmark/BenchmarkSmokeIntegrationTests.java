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
 * Runs every workload, W6 included, at smoke size on redeq and both peers against the
 * benchmark's own redis-server, so the benchmark cannot rot: each RESULT line is there,
 * no job was lost or doubled, and the side-by-side table is printed.
 */
class BenchmarkSmokeIntegrationTests {

	private static final List<String> SYSTEMS = List.of("redeq", "textbook", "redisson");

	@Test
	@Timeout(240)
	void everyWorkloadRunsOnEverySystemAtSmokeSizeAndLosesNothing() {
		ByteArrayOutputStream bytes = new ByteArrayOutputStream();
		int status;
		try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
			status = Benchmark.run(out, "--smoke", "--full");
		}
		String output = bytes.toString(StandardCharsets.UTF_8);
		System.out.println(output);
		List<String> lines = Arrays.asList(output.split("\n"));
		List<String> results = lines.stream().filter((l) -> l.startsWith("RESULT ")).toList();

		assertThat(output).contains("MACHINE cores=").contains("JDK version=").contains("REDIS version=");
		assertThat(results).noneMatch((l) -> l.contains(" error="));
		for (String system : SYSTEMS) {
			String tag = " system=" + system + " ";
			assertThat(results).as(system)
				.anyMatch((l) -> l.startsWith("RESULT workload=W1 mode=single" + tag) && l.contains(" jobs=2000 "))
				.anyMatch((l) -> l.startsWith("RESULT workload=W1 mode=batch" + tag) && l.contains(" jobs=2000 "))
				.anyMatch((l) -> l.startsWith("RESULT workload=W1c mode=single" + tag) && l.contains(" jobs=2000 ")
						&& l.contains(" threads=16 ") && l.contains(" failed=0 "))
				.anyMatch((l) -> l.startsWith("RESULT workload=W2" + tag + "jobs=2000 consumers=4 jobs_per_s="))
				.anyMatch((l) -> l.startsWith("RESULT workload=W3" + tag + "rate=") && l.contains(" p99_ms=")
						&& l.contains(" commands_per_job=") && l.contains(" client_cpu_us_per_job="))
				.anyMatch((l) -> l.startsWith("RESULT workload=W3b" + tag + "rate=1000 ") && l.contains(" producers=8 ")
						&& l.contains(" calls=single ") && l.contains(" produced_per_s=") && l.contains(" p999_ms="))
				.anyMatch(
						(l) -> l.startsWith("RESULT workload=W4" + tag + "jobs=2000 ") && l.contains(" bytes_per_job="))
				.anyMatch((l) -> l.startsWith("RESULT workload=W6 part=W1-batch" + tag + "jobs=4000 ")
						&& l.contains(" us_per_job_at_2000="))
				.anyMatch((l) -> l.startsWith("RESULT workload=W6 part=W2" + tag + "jobs=4000 "))
				.anyMatch((l) -> l.startsWith("RESULT workload=W6 part=W4" + tag + "jobs=4000 ")
						&& l.contains(" bytes_per_job_at_2000="));
		}
		// W1 async runs on redeq only: its peers have no asynchronous schedule here.
		assertThat(results)
			.anyMatch((l) -> l.startsWith("RESULT workload=W1 mode=async system=redeq jobs=2000 ")
					&& l.contains(" in_flight=256 ") && l.contains(" failed=0 "))
			.noneMatch((l) -> l.startsWith("RESULT workload=W1 mode=async") && !l.contains(" system=redeq "));
		assertThat(results).anyMatch(
				(l) -> l.startsWith("RESULT workload=W5 system=redeq listeners=4 ") && l.contains(" commands_per_s="));
		// The two script floors beside redeq's W1 single: measurements, no jobs to lose;
		// each row shows its ratio to the peers' W1 single.
		assertThat(results)
			.anyMatch((l) -> l.startsWith("RESULT workload=W1 mode=floor system=redeq calls=2000 ")
					&& l.contains(" calls_per_s="))
			.anyMatch((l) -> l.startsWith("RESULT workload=W1 mode=commands-floor system=redeq calls=2000 ")
					&& l.contains(" calls_per_s="))
			.anyMatch((l) -> l.startsWith("RESULT workload=W1 mode=batch-floor system=redeq jobs=2000 ")
					&& l.contains(" jobs_per_s="))
			.anyMatch((l) -> l.startsWith("RESULT workload=W1c mode=floor system=redeq calls=2000 threads=16 ")
					&& l.contains(" calls_per_s="));
		assertThat(lines)
			.anyMatch((l) -> l.startsWith("| " + ScriptFloor.COMMANDS_ROW + " |")
					&& l.matches(".*\\| [0-9.]+ \\| [0-9.]+ \\|$"))
			.anyMatch((l) -> l.startsWith("| " + BatchFloor.ROW + " |") && l.matches(".*\\| [0-9.]+ \\| [0-9.]+ \\|$"));
		assertThat(results.stream()
			.filter((l) -> !l.startsWith("RESULT workload=W5 ") && !l.startsWith("RESULT workload=W1 mode=floor ")
					&& !l.startsWith("RESULT workload=W1 mode=commands-floor ")
					&& !l.startsWith("RESULT workload=W1 mode=batch-floor ")
					&& !l.startsWith("RESULT workload=W1c mode=floor ")))
			.hasSize(3 * 10 + 1)
			.allMatch((l) -> l.contains(" missing=0 dup=0"), "missing=0 dup=0");
		assertThat(lines).contains("| workload | textbook | Redisson | redeq | redeq/textbook | redeq/Redisson |")
			.anyMatch((l) -> l.startsWith("| W3 lateness p99, ms ") && !l.contains("–"))
			.anyMatch((l) -> l.startsWith("| W3b lateness p99, ms ") && !l.contains("–"))
			.anyMatch((l) -> l.startsWith("| W3b produced, jobs/s, target 1,000 from 8 threads ") && !l.contains("–"));
		assertThat(status).isZero();
	}

}
