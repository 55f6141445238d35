package io.redeq.internal.observation;

import java.util.LinkedHashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * The W3C trace context ({@code traceparent}, and {@code tracestate} if present) as it is
 * stored in a job's payload record: {@code <traceparent>[ <tracestate>]}, between the
 * created time and the {@code '|'} that starts the payload. {@code traceparent} holds
 * only hex digits and dashes; {@code tracestate} may hold spaces, {@code '|'} and
 * {@code '%'}, so those three are percent-encoded.
 */
public final class TraceContext {

	static final String TRACEPARENT = "traceparent";

	static final String TRACESTATE = "tracestate";

	private TraceContext() {
	}

	/**
	 * The stored form of the propagation headers a tracer wrote.
	 * @param headers the headers
	 * @return the stored form, or {@code null} if there is no well-formed
	 * {@code traceparent} (no tracer, or another propagation format)
	 */
	public static @Nullable String encode(Map<String, String> headers) {
		String parent = headers.get(TRACEPARENT);
		if (parent == null || parent.isEmpty() || !isParentLike(parent)) {
			return null;
		}
		String state = headers.get(TRACESTATE);
		return (state == null || state.isEmpty()) ? parent : parent + " " + escape(state);
	}

	/**
	 * The propagation headers of a stored form.
	 * @param stored the stored form, or {@code null}
	 * @return the headers, empty if none were stored
	 */
	public static Map<String, String> decode(@Nullable String stored) {
		Map<String, String> headers = new LinkedHashMap<>(4);
		if (stored == null || stored.isEmpty()) {
			return headers;
		}
		int space = stored.indexOf(' ');
		headers.put(TRACEPARENT, (space < 0) ? stored : stored.substring(0, space));
		if (space >= 0) {
			headers.put(TRACESTATE, unescape(stored.substring(space + 1)));
		}
		return headers;
	}

	/** Only what a traceparent holds: the record's parser relies on it. */
	private static boolean isParentLike(String value) {
		for (int i = 0; i < value.length(); i++) {
			char c = value.charAt(i);
			boolean hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
			if (!hex && c != '-') {
				return false;
			}
		}
		return true;
	}

	private static String escape(String value) {
		StringBuilder out = new StringBuilder(value.length() + 8);
		for (int i = 0; i < value.length(); i++) {
			char c = value.charAt(i);
			switch (c) {
				case '%' -> out.append("%25");
				case ' ' -> out.append("%20");
				case '|' -> out.append("%7C");
				default -> out.append(c);
			}
		}
		return out.toString();
	}

	private static String unescape(String value) {
		if (value.indexOf('%') < 0) {
			return value;
		}
		StringBuilder out = new StringBuilder(value.length());
		for (int i = 0; i < value.length(); i++) {
			char c = value.charAt(i);
			if (c == '%' && i + 2 < value.length()) {
				String code = value.substring(i + 1, i + 3);
				switch (code) {
					case "25" -> out.append('%');
					case "20" -> out.append(' ');
					case "7C" -> out.append('|');
					default -> out.append(c).append(code);
				}
				i += 2;
			}
			else {
				out.append(c);
			}
		}
		return out.toString();
	}

}
