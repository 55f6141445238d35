package io.redeq.internal.migrator;

import java.net.InetAddress;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import io.redeq.InstanceInfo;
import io.redeq.Redeq;

/**
 * What an instance publishes of itself with each heartbeat, as a small JSON text: its id,
 * host, start time, redeq version, owned buckets and listeners. Bounded: at most
 * {@link #MAX_LISTENERS} listeners (topics of at most 100 characters) and the bucket
 * count's 1024 buckets, so a description stays under about 20 KB.
 */
public final class InstanceDescriptions {

	/** Listeners listed per instance; the first ones by topic name. */
	static final int MAX_LISTENERS = 100;

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private final String instanceId;

	private final Instant startedAt;

	private volatile @Nullable String hostName;

	/**
	 * The descriptions of one instance.
	 * @param instanceId the instance's id
	 * @param startedAt when it was built
	 */
	public InstanceDescriptions(String instanceId, Instant startedAt) {
		this.instanceId = instanceId;
		this.startedAt = startedAt;
	}

	/**
	 * The description as it is now.
	 * @param ownedBuckets the buckets the migrator owns
	 * @param listeners the running subscriptions
	 * @return the JSON text to publish
	 */
	String describe(int[] ownedBuckets, List<InstanceInfo.Listener> listeners) {
		Map<String, Object> description = new LinkedHashMap<>();
		description.put("id", this.instanceId);
		description.put("host", hostName());
		description.put("startedAt", this.startedAt.toEpochMilli());
		description.put("version", Redeq.class.getPackage().getImplementationVersion());
		description.put("buckets", ownedBuckets);
		List<Map<String, Object>> subscribed = new ArrayList<>();
		listeners.stream()
			.sorted(Comparator.comparing(InstanceInfo.Listener::topic))
			.limit(MAX_LISTENERS)
			.forEach((listener) -> {
				Map<String, Object> each = new LinkedHashMap<>();
				each.put("topic", listener.topic());
				each.put("concurrency", listener.concurrency());
				each.put("paused", listener.paused());
				subscribed.add(each);
			});
		description.put("listeners", subscribed);
		return JSON.writeValueAsString(description);
	}

	/**
	 * Reads a published description.
	 * @param text the JSON text
	 * @return the instance, or {@code null} if the text is not a description (written by
	 * something else than redeq)
	 */
	public static @Nullable InstanceInfo read(String text) {
		try {
			JsonNode node = JSON.readTree(text);
			List<Integer> buckets = new ArrayList<>();
			node.path("buckets").forEach((bucket) -> buckets.add(bucket.asInt()));
			List<InstanceInfo.Listener> listeners = new ArrayList<>();
			node.path("listeners")
				.forEach((listener) -> listeners.add(new InstanceInfo.Listener(listener.path("topic").asString(),
						listener.path("concurrency").asInt(), listener.path("paused").asBoolean())));
			JsonNode version = node.path("version");
			return new InstanceInfo(node.path("id").asString(), node.path("host").asString(),
					Instant.ofEpochMilli(node.path("startedAt").asLong()),
					version.isString() ? version.asString() : null, buckets, listeners);
		}
		catch (JacksonException | IllegalArgumentException ex) {
			return null;
		}
	}

	/**
	 * The host's name, looked up once, on the migrator's thread (a slow resolver must not
	 * delay building the engine).
	 */
	private String hostName() {
		String name = this.hostName;
		if (name == null) {
			try {
				name = InetAddress.getLocalHost().getHostName();
			}
			catch (Exception ex) {
				name = "unknown";
			}
			this.hostName = name;
		}
		return name;
	}

}
