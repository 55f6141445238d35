package io.redeq.spring.internal.dashboard;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;

import org.jspecify.annotations.Nullable;

import org.springframework.web.servlet.function.ServerRequest;

/**
 * What every page needs besides its data: where the dashboard lives as the browser sees
 * it, whether the user may act, the forms' CSRF tokens, the time the page is drawn at.
 *
 * @param request the request
 * @param settings the dashboard's settings
 * @param mayAct whether actions are shown
 * @param token the forms' hidden fields
 * @param now when the page is drawn
 */
record PageContext(ServerRequest request, DashboardSettings settings, boolean mayAct, ActionGuard.FormToken token,
		Instant now) {

	/**
	 * The dashboard's root as the browser sees it: the servlet context path (with a
	 * forwarded prefix, when a {@code ForwardedHeaderFilter} applied one) and the
	 * configured path.
	 */
	String base() {
		return base(this.request, this.settings);
	}

	static String base(ServerRequest request, DashboardSettings settings) {
		return request.servletRequest().getContextPath() + settings.path();
	}

	/** A path below the dashboard's root. */
	String url(String below) {
		return base() + below;
	}

	/** The page of one topic, in one state. */
	String topicUrl(String topic, @Nullable String state) {
		return url("/topics/" + encode(topic) + ((state != null) ? "?state=" + state : ""));
	}

	/** The page of one job, found by its id. */
	String jobUrl(String topic, String state, String id) {
		return topicUrl(topic, state) + "&id=" + encode(id);
	}

	/** The request's path and query: where an action returns to. */
	String here() {
		String query = this.request.servletRequest().getQueryString();
		String path = this.request.servletRequest().getRequestURI();
		return (query != null) ? path + "?" + stripMessages(query) : path;
	}

	/** The query without the message of a previous action. */
	private static String stripMessages(String query) {
		StringBuilder kept = new StringBuilder();
		for (String part : query.split("&")) {
			if (!part.startsWith("msg=") && !part.startsWith("err=") && !part.isEmpty()) {
				kept.append((kept.length() > 0) ? "&" : "").append(part);
			}
		}
		return kept.toString();
	}

	static String encode(String value) {
		return URLEncoder.encode(value, StandardCharsets.UTF_8);
	}

}
