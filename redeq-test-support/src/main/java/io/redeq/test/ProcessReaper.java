package io.redeq.test;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Kills every Redis process this JVM started when the JVM exits, even if a test forgot to
 * stop one or the run was interrupted (Ctrl-C, SIGTERM from a CI timeout). A JVM killed
 * with SIGKILL runs no hooks, so that case alone can still leave a process behind; each
 * server listens on a random loopback port and keeps its files in a temp dir, so a
 * leftover harms no later run.
 */
final class ProcessReaper {

	private static final Set<LocalRedisProcess> TRACKED = ConcurrentHashMap.newKeySet();

	static {
		Runtime.getRuntime().addShutdownHook(new Thread(ProcessReaper::reapAll, "redeq-redis-reaper"));
	}

	private ProcessReaper() {
	}

	static void track(LocalRedisProcess process) {
		TRACKED.add(process);
	}

	static void untrack(LocalRedisProcess process) {
		TRACKED.remove(process);
	}

	private static void reapAll() {
		for (LocalRedisProcess process : TRACKED) {
			try {
				process.destroyOnShutdown();
			}
			catch (RuntimeException ex) {
				// Keep going: one stubborn process must not keep the others alive.
			}
		}
	}

}
