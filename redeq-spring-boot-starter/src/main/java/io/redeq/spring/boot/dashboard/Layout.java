package io.redeq.spring.boot.dashboard;

import org.jspecify.annotations.Nullable;

import io.redeq.Redeq;
import io.redeq.RedeqSnapshot;

/**
 * The frame of every page: head, navigation, Redis status, the message of the last
 * action, and the action forms.
 */
final class Layout {

	private final Redeq redeq;

	Layout(Redeq redeq) {
		this.redeq = redeq;
	}

	/** The whole page around {@code body}. */
	String page(PageContext context, String title, String section, RedeqSnapshot snapshot, String body) {
		Html html = new Html();
		html.raw("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">")
			.raw("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">")
			.raw("<title>")
			.text(title + " · redeq")
			.raw("</title>")
			.raw("<link rel=\"stylesheet\"")
			.attr("href", context.url("/assets/dashboard.css"))
			.raw("><script defer")
			.attr("src", context.url("/assets/dashboard.js"))
			.raw("></script></head><body><header class=\"top\"><a class=\"brand\"")
			.attr("href", context.url(""))
			.raw(">redeq</a><span class=\"prefix\" title=\"Key prefix\">")
			.text(this.redeq.options().prefix())
			.raw("</span><nav>");
		nav(html, context, "overview", "Overview", "", section);
		nav(html, context, "dead", "Dead letters", "/dead", section);
		nav(html, context, "instance", "Instances", "/instance", section);
		html.raw("</nav><span class=\"spacer\"></span>");
		if (!context.mayAct()) {
			html.raw("<span class=\"badge muted\" id=\"read-only\">")
				.text(context.settings().readOnly() ? "read-only" : "view only")
				.raw("</span>");
		}
		if (snapshot.redisReachable()) {
			html.raw("<span class=\"badge ok\" id=\"redis-status\">Redis up</span>");
		}
		else {
			html.raw("<span class=\"badge bad\" id=\"redis-status\"")
				.attr("title", snapshot.error())
				.raw(">Redis unreachable</span>");
		}
		html.raw("<label class=\"refresh\"><input type=\"checkbox\" id=\"auto-refresh\"> auto-refresh</label>")
			.raw("</header><main>");
		message(html, context);
		html.raw(body).raw("</main></body></html>");
		return html.toString();
	}

	private static void nav(Html html, PageContext context, String id, String label, String below, String section) {
		html.raw("<a").attr("href", context.url(below)).attr("id", "nav-" + id);
		if (id.equals(section)) {
			html.raw(" class=\"active\" aria-current=\"page\"");
		}
		html.raw(">").text(label).raw("</a>");
	}

	private static void message(Html html, PageContext context) {
		context.request()
			.param("msg")
			.ifPresent((msg) -> html.raw("<p class=\"flash ok\" id=\"flash\" role=\"status\">").text(msg).raw("</p>"));
		context.request()
			.param("err")
			.ifPresent((err) -> html.raw("<p class=\"flash bad\" id=\"flash\" role=\"alert\">").text(err).raw("</p>"));
	}

	/** A one-button form that posts an action, or nothing when the user may not act. */
	static void actionForm(Html html, PageContext context, DashboardActions.Action action, String topic,
			@Nullable String id) {
		if (!context.mayAct()) {
			return;
		}
		html.raw("<form method=\"post\" class=\"inline\"").attr("action", context.url("/actions"));
		if (action.confirm() != null) {
			html.attr("data-confirm", action.confirm());
		}
		html.raw(">");
		hidden(html, "action", action.name());
		hidden(html, "topic", topic);
		if (id != null) {
			hidden(html, "id", id);
		}
		hidden(html, "return", context.here());
		hidden(html, context.token().own().name(), context.token().own().value());
		if (context.token().security() != null) {
			hidden(html, context.token().security().name(), context.token().security().value());
		}
		html.raw("<button type=\"submit\"")
			.attr("class", "action " + action.name())
			.attr("data-action", action.name())
			.attr("data-id", (id != null) ? id : topic)
			.raw(">")
			.text(action.label())
			.raw("</button></form>");
	}

	private static void hidden(Html html, String name, String value) {
		html.raw("<input type=\"hidden\"").attr("name", name).attr("value", value).raw(">");
	}

}
