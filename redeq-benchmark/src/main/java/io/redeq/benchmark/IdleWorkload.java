package io.redeq.benchmark;

import java.io.IOException;
import java.util.Map;

import io.redeq.Redeq;

/**
 * W5 (redeq only), idle cost: Redis commands per second issued by one idle engine with 4
 * listeners, from INFO commandstats deltas and, for top-level commands, MONITOR.
 */
final class IdleWorkload {

	private static final int LISTENERS = 4;

	static final String ROW = "W5 idle, 4 listeners: commands/s issued (lower is better)";

	private final Harness harness;

	IdleWorkload(Harness harness) {
		this.harness = harness;
	}

	boolean run(RedeqContender redeqContender) throws InterruptedException, IOException {
		Options options = this.harness.options;
		try (Redeq redeq = redeqContender.engine(this.harness.fresh("w5"), null)) {
			for (int i = 0; i < LISTENERS; i++) {
				redeq.subscribe("idle-" + i, String.class, (payload, delivery) -> {
				});
			}
			// Lets ownership and blocking reads settle.
			Thread.sleep(options.smoke ? 500 : 3000);
			try (RedisProbe.Monitor monitor = this.harness.probe.monitor()) {
				Snapshot before = this.harness.snapshot();
				monitor.startCounting();
				Thread.sleep(options.idleSeconds * 1000L);
				long topLevel = monitor.stopCounting();
				Snapshot after = this.harness.snapshot();
				double seconds = after.secondsSince(before);
				Map<String, long[]> delta = after.stats().since(before.stats());
				long all = delta.values().stream().mapToLong((v) -> v[0]).sum();
				long scripts = delta.getOrDefault("evalsha", new long[2])[0]
						+ delta.getOrDefault("eval", new long[2])[0] + delta.getOrDefault("fcall", new long[2])[0];
				this.harness.line(
						"RESULT workload=W5 system=redeq listeners=%d seconds=%.1f commands_per_s=%.1f toplevel_per_s=%.1f scripts_per_s=%.1f redis_cpu_ms_per_s=%.2f",
						LISTENERS, seconds, all / seconds, topLevel / seconds, scripts / seconds,
						(after.redisCpuMicros() - before.redisCpuMicros()) / 1000.0 / seconds);
				delta.forEach((command, v) -> this.harness.line(
						"DETAIL workload=W5 system=redeq cmd=%s calls_per_s=%.2f (commandstats, script-internal included)",
						command, v[0] / seconds));
				monitor.byCommand()
					.forEach((command, calls) -> this.harness.line(
							"DETAIL workload=W5 system=redeq toplevel_cmd=%s calls_per_s=%.2f", command,
							calls / seconds));
				this.harness.table.put(ROW, RedeqContender.NAME, topLevel / seconds, "%.1f", topLevel / seconds);
			}
			return true;
		}
	}

}
