package io.redeq.spring.boot.autoconfigure;

import java.util.Map;
import java.util.Properties;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.ApplicationListener;
import org.springframework.context.event.ContextRefreshedEvent;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Checks once, after the context started, that Redis keeps jobs: a
 * {@code maxmemory-policy} other than {@code noeviction} lets Redis evict jobs when
 * memory runs out, and a server without AOF or RDB save points loses every job when it
 * restarts. Each finding is one WARN line with the fix. Runs on its own daemon thread so
 * that a slow or absent Redis never delays startup; a user whose ACL forbids INFO or
 * CONFIG (or a managed Redis that renames them) skips the check at DEBUG.
 */
class RedisSafetyChecks implements ApplicationListener<ContextRefreshedEvent> {

	static final Log logger = LogFactory.getLog(RedisSafetyChecks.class);

	private final ObjectProvider<RedisConnectionFactory> connectionFactory;

	private final AtomicBoolean done = new AtomicBoolean();

	RedisSafetyChecks(ObjectProvider<RedisConnectionFactory> connectionFactory) {
		this.connectionFactory = connectionFactory;
	}

	@Override
	public void onApplicationEvent(ContextRefreshedEvent event) {
		RedisConnectionFactory factory = this.connectionFactory.getIfUnique();
		if (factory == null || !this.done.compareAndSet(false, true)) {
			return;
		}
		Thread thread = new Thread(() -> run(factory), "redeq-startup-checks");
		thread.setDaemon(true);
		thread.start();
	}

	void run(RedisConnectionFactory factory) {
		try (RedisConnection connection = factory.getConnection()) {
			checkEviction(connection);
			checkPersistence(connection);
		}
		catch (RuntimeException ex) {
			logger.debug("Skipped redeq's Redis startup checks: " + ex.getMessage());
		}
	}

	private void checkEviction(RedisConnection connection) {
		Properties memory;
		try {
			memory = connection.serverCommands().info("memory");
		}
		catch (RuntimeException ex) {
			logger.debug("Skipped the maxmemory-policy check: INFO is not permitted (" + ex.getMessage() + ")");
			return;
		}
		TreeSet<String> policies = values(memory, "maxmemory_policy");
		policies.remove("noeviction");
		if (!policies.isEmpty()) {
			logger.warn("Redis maxmemory-policy is " + policies + ", not noeviction: when memory runs out Redis "
					+ "evicts keys, and an evicted redeq job is lost without a trace. Fix: set "
					+ "'maxmemory-policy noeviction' (CONFIG SET maxmemory-policy noeviction, and in redis.conf "
					+ "or your provider's parameter group); a full Redis then rejects new jobs with an error instead");
		}
	}

	private void checkPersistence(RedisConnection connection) {
		Properties appendOnly;
		Properties save;
		try {
			appendOnly = connection.serverCommands().getConfig("appendonly");
			save = connection.serverCommands().getConfig("save");
		}
		catch (RuntimeException ex) {
			logger.debug("Skipped the persistence check: CONFIG is not permitted (" + ex.getMessage() + ")");
			return;
		}
		boolean aof = values(appendOnly, "appendonly").contains("yes");
		TreeSet<String> savePoints = values(save, "save");
		savePoints.remove("");
		if (!aof && savePoints.isEmpty()) {
			logger.warn("Redis persistence is off (appendonly no, no RDB save points): every redeq job is lost "
					+ "when Redis restarts. Fix: turn on the append-only file ('appendonly yes' with "
					+ "'appendfsync everysec'), or at least RDB snapshots (e.g. 'save 60 1000')");
		}
	}

	/**
	 * Values of a key in INFO or CONFIG GET output; a cluster connection prefixes each
	 * key with its node ("host:port.key"), so every node's value is collected.
	 */
	private static TreeSet<String> values(Properties properties, String key) {
		TreeSet<String> values = new TreeSet<>();
		for (Map.Entry<Object, Object> entry : properties.entrySet()) {
			String name = String.valueOf(entry.getKey());
			if (name.equals(key) || name.endsWith("." + key)) {
				values.add(String.valueOf(entry.getValue()).trim());
			}
		}
		return values;
	}

}
