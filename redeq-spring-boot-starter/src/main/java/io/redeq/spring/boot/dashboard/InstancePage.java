package io.redeq.spring.boot.dashboard;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.jspecify.annotations.Nullable;

import io.redeq.InstanceInfo;
import io.redeq.Redeq;
import io.redeq.RedeqOptions;
import io.redeq.RedeqSnapshot;
import io.redeq.SubscriptionOptions;
import io.redeq.spring.listener.ListenerMethod;
import io.redeq.spring.listener.RedeqListenerEndpointRegistry;

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

	String render(PageContext context) {
		RedeqSnapshot snapshot = this.redeq.refreshSnapshot();
		RedeqOptions options = this.redeq.options();
		Html html = new Html();
		html.raw("<h1>Instances</h1><p class=\"muted\">Every instance migrates the buckets it owns and runs its own ")
			.raw("listeners; counts and history are shared. Each live instance describes itself with its heartbeat; ")
			.raw("one that stops is gone from this list within the migrator's lock ttl.</p>");
		instanceTable(html, context);
		html.raw(
				"<h2>This instance</h2><dl class=\"facts\" id=\"instance\"><dt>Instance id</dt><dd><code id=\"instance-id\">")
			.text(this.redeq.instanceId())
			.raw("</code></dd><dt>Key prefix</dt><dd><code>")
			.text(options.prefix())
			.raw("</code></dd><dt>Buckets</dt><dd>")
			.count(options.buckets())
			.raw("</dd><dt>Migrator</dt><dd>")
			.text(options.migratorEnabled() ? "on" : "off")
			.raw("</dd><dt>Owned buckets</dt><dd id=\"owned-buckets\">")
			.text(snapshot.ownedBuckets().isEmpty() ? "none" : snapshot.ownedBuckets().toString())
			.raw("</dd><dt>Migration lag</dt><dd>")
			.text(Html.span(snapshot.migrationLag()))
			.raw("</dd><dt>Snapshot</dt><dd>")
			.time(snapshot.takenAt(), context.now())
			.raw("</dd></dl>");
		listenerTable(html, snapshot, options);
		return this.layout.page(context, "Instances", "instance", snapshot, html.toString());
	}

	private void instanceTable(Html html, PageContext context) {
		List<InstanceInfo> instances = this.redeq.admin().instances();
		html.raw("<table class=\"grid\" id=\"instances\"><thead><tr><th>Instance</th><th>Host</th><th>Started</th>")
			.raw("<th>Version</th><th>Owned buckets</th><th>Listeners (concurrency)</th></tr></thead><tbody>");
		for (InstanceInfo instance : instances) {
			boolean serving = instance.instanceId().equals(this.redeq.instanceId());
			html.raw("<tr")
				.attr("data-instance", instance.instanceId())
				.raw("><td><code>")
				.text(instance.instanceId())
				.raw("</code>")
				.raw(serving ? " <span class=\"badge ok\" id=\"serving\">serving this page</span>" : "")
				.raw("</td><td>")
				.text(instance.hostName())
				.raw("</td><td>")
				.time(instance.startedAt(), context.now())
				.raw("</td><td>")
				.text((instance.version() != null) ? instance.version() : "–")
				.raw("</td><td class=\"buckets\">")
				.text(buckets(instance.ownedBuckets()))
				.raw("</td><td>");
			if (instance.listeners().isEmpty()) {
				html.raw("<span class=\"muted\">none</span>");
			}
			for (InstanceInfo.Listener listener : instance.listeners()) {
				html.raw("<span class=\"listener\"")
					.attr("data-topic", listener.topic())
					.raw(">")
					.text(listener.topic() + " (" + listener.concurrency() + ")")
					.raw(listener.paused() ? " <span class=\"badge bad\">paused</span>" : "")
					.raw("</span> ");
			}
			html.raw("</td></tr>");
		}
		if (instances.isEmpty()) {
			html.raw("<tr><td colspan=\"6\" class=\"empty\">No instance has described itself yet: ")
				.raw("instances whose migrator is off do not heartbeat.</td></tr>");
		}
		html.raw("</tbody></table>");
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

	private void listenerTable(Html html, RedeqSnapshot snapshot, RedeqOptions defaults) {
		html.raw("<h2>Listeners</h2><table class=\"grid\" id=\"listeners\"><thead><tr><th>Topic</th><th>Method</th>")
			.raw("<th class=\"num\">Concurrency</th><th class=\"num\">Max attempts</th><th>Timeout</th>")
			.raw("<th>Running</th></tr></thead><tbody>");
		Set<String> described = new TreeSet<>();
		if (this.listeners != null) {
			for (Map.Entry<String, ListenerMethod> entry : this.listeners.listeners().entrySet()) {
				ListenerMethod listener = entry.getValue();
				SubscriptionOptions options = this.listeners.subscriptionOptions(listener);
				html.raw("<tr")
					.attr("data-topic", listener.topic())
					.raw("><td>")
					.text(listener.topic())
					.raw("</td><td><code>")
					.text(listener.description())
					.raw("</code></td><td class=\"num\">")
					.count(options.concurrency(defaults))
					.raw("</td><td class=\"num\">")
					.count(options.maxAttempts(defaults))
					.raw("</td><td>")
					.text(Html.span(options.timeout(defaults)))
					.raw("</td><td>")
					.text((this.listeners.subscription(listener.topic()) != null) ? "yes" : "no")
					.raw("</td></tr>");
				described.add(listener.topic());
			}
		}
		for (String topic : snapshot.subscribedTopics()) {
			if (described.add(topic)) {
				html.raw("<tr")
					.attr("data-topic", topic)
					.raw("><td>")
					.text(topic)
					.raw("</td><td class=\"muted\">Redeq.subscribe</td><td></td><td></td><td></td><td>yes</td></tr>");
			}
		}
		if (described.isEmpty()) {
			html.raw("<tr><td colspan=\"6\" class=\"empty\">This instance consumes no topic.</td></tr>");
		}
		html.raw("</tbody></table>");
	}

}
