package io.redeq.spring.internal.dashboard;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import org.jspecify.annotations.Nullable;

import io.redeq.InstanceInfo;
import io.redeq.Redeq;
import io.redeq.RedeqOptions;
import io.redeq.RedeqSnapshot;
import io.redeq.SubscriptionOptions;
import io.redeq.spring.internal.listener.ListenerMethod;
import io.redeq.spring.internal.listener.RedeqListenerEndpointRegistry;

/**
 * Every live instance of the prefix, as each described itself with its last heartbeat
 * ({@link io.redeq.RedeqAdmin#instances()}), then what the instance serving the dashboard
 * knows of itself: its id, the buckets its migrator owns, its listeners and their
 * settings.
 */
final class InstancePage {

	private final Redeq redeq;

	private final @Nullable RedeqListenerEndpointRegistry listeners;

	private final Layout layout;

	InstancePage(Redeq redeq, @Nullable RedeqListenerEndpointRegistry listeners, Layout layout) {
		this.redeq = redeq;
		this.listeners = listeners;
		this.layout = layout;
	}

	Model render(PageContext context) {
		RedeqSnapshot snapshot = this.redeq.refreshSnapshot();
		RedeqOptions options = this.redeq.options();
		List<Instance> instances = new ArrayList<>();
		for (InstanceInfo instance : this.redeq.admin().instances()) {
			List<Instance.Listener> listening = new ArrayList<>();
			for (InstanceInfo.Listener listener : instance.listeners()) {
				listening.add(new Instance.Listener(listener.topic(), listener.concurrency(), listener.paused()));
			}
			instances.add(new Instance(instance.instanceId(), instance.instanceId().equals(this.redeq.instanceId()),
					instance.hostName(), Format.time(instance.startedAt(), context.now()),
					(instance.version() != null) ? instance.version() : "–", buckets(instance.ownedBuckets()),
					listening));
		}
		Self self = new Self(this.redeq.instanceId(), options.prefix(), Format.count(options.buckets()),
				options.migratorEnabled() ? "on" : "off",
				snapshot.ownedBuckets().isEmpty() ? "none" : snapshot.ownedBuckets().toString(),
				Format.span(snapshot.migrationLag()), Format.time(snapshot.takenAt(), context.now()));
		return new Model(this.layout.frame(context, "Instances", "instance", snapshot), instances, self,
				listeners(snapshot, options));
	}

	/**
	 * Bucket numbers as a count and ranges, {@code 6: 0–3, 8, 10}: an instance may own
	 * hundreds.
	 */
	static String buckets(List<Integer> buckets) {
		if (buckets.isEmpty()) {
			return "none";
		}
		StringBuilder ranges = new StringBuilder().append(buckets.size()).append(": ");
		int i = 0;
		while (i < buckets.size()) {
			int j = i;
			while (j + 1 < buckets.size() && buckets.get(j + 1) == buckets.get(j) + 1) {
				j++;
			}
			ranges.append((i > 0) ? ", " : "").append(buckets.get(i));
			if (j > i) {
				ranges.append('–').append(buckets.get(j));
			}
			i = j + 1;
		}
		return ranges.toString();
	}

	private List<Listener> listeners(RedeqSnapshot snapshot, RedeqOptions defaults) {
		List<Listener> rows = new ArrayList<>();
		Set<String> described = new TreeSet<>();
		if (this.listeners != null) {
			for (ListenerMethod listener : this.listeners.listeners().values()) {
				SubscriptionOptions options = this.listeners.subscriptionOptions(listener);
				rows.add(new Listener(listener.topic(), listener.description(),
						Format.count(options.concurrency(defaults)), Format.count(options.maxAttempts(defaults)),
						Format.span(options.timeout(defaults)),
						(this.listeners.subscription(listener.topic()) != null) ? "yes" : "no"));
				described.add(listener.topic());
			}
		}
		for (String topic : snapshot.subscribedTopics()) {
			if (described.add(topic)) {
				rows.add(new Listener(topic, null, "", "", "", "yes"));
			}
		}
		return rows;
	}

	/**
	 * The instances page ({@code instance.mustache}).
	 *
	 * @param frame the page's frame
	 * @param instances every live instance
	 * @param self the instance serving the page
	 * @param listeners that instance's listeners and subscriptions
	 */
	record Model(Layout.Frame frame, List<Instance> instances, Self self, List<Listener> listeners) {
	}

	/**
	 * A live instance, as its heartbeat describes it.
	 *
	 * @param id its id
	 * @param serving whether it serves this page
	 * @param host its host name
	 * @param started when it started
	 * @param version its redeq version, or a dash
	 * @param buckets the buckets it owns, as ranges
	 * @param listeners its subscriptions
	 */
	record Instance(String id, boolean serving, String host, Format.Time started, String version, String buckets,
			List<Listener> listeners) {

		/**
		 * A subscription of the instance.
		 *
		 * @param topic its topic
		 * @param concurrency its concurrency
		 * @param paused whether its topic is paused
		 */
		record Listener(String topic, int concurrency, boolean paused) {
		}

	}

	/**
	 * What the instance serving the page knows of itself.
	 *
	 * @param id its id
	 * @param prefix the key prefix
	 * @param buckets the bucket count
	 * @param migrator whether its migrator runs ("on", "off")
	 * @param owned the buckets it owns
	 * @param lag the migration lag
	 * @param snapshot when the snapshot was taken
	 */
	record Self(String id, String prefix, String buckets, String migrator, String owned, String lag,
			Format.Time snapshot) {
	}

	/**
	 * A listener of this instance.
	 *
	 * @param topic its topic
	 * @param method its method, or {@code null} for a {@code Redeq.subscribe}
	 * subscription
	 * @param concurrency its concurrency
	 * @param maxAttempts its max attempts
	 * @param timeout its timeout
	 * @param running whether it runs ("yes", "no")
	 */
	record Listener(String topic, @Nullable String method, String concurrency, String maxAttempts, String timeout,
			String running) {
	}

}
