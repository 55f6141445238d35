package io.redeq.internal.redis;

import java.util.ArrayList;
import java.util.List;

/**
 * Reads the values of a script's reply. Lettuce hands a MULTI reply over as a list whose
 * values are {@code Long} (Lua integers) and {@code String} (Lua strings); each result
 * record parses the reply of its script in one static factory, naming every position
 * there once, in the words of the script's header.
 */
final class ScriptReply {

	/**
	 * First value of the answer a script gives, having written nothing, when it met jobs
	 * of topics whose keys were not declared; the topics follow.
	 */
	static final String TOPICS = "topics";

	private ScriptReply() {
	}

	static long number(Object value) {
		if (value instanceof Number number) {
			return number.longValue();
		}
		return Long.parseLong(String.valueOf(value));
	}

	static String text(Object value) {
		return String.valueOf(value);
	}

	/** A value the script sets to 1 for yes and 0 for no. */
	static boolean isOne(Object value) {
		return number(value) == 1;
	}

	/** Whether the reply is the 'topics' answer rather than a result. */
	static boolean asksForTopics(List<Object> reply) {
		return !reply.isEmpty() && TOPICS.equals(reply.get(0));
	}

	/**
	 * The topics a 'topics' answer asks to have declared; empty when the reply is a
	 * result.
	 */
	static List<String> topicsAskedFor(List<Object> reply) {
		if (!asksForTopics(reply)) {
			return List.of();
		}
		List<String> topics = new ArrayList<>(reply.size() - 1);
		for (int i = 1; i < reply.size(); i++) {
			topics.add(text(reply.get(i)));
		}
		return topics;
	}

	/** The reply of complete and extend: per job, 1 if the claim was still ours. */
	static List<Boolean> perJobFlags(List<Object> reply) {
		return reply.stream().map(ScriptReply::isOne).toList();
	}

	/** Refuses the 'topics' answer where a parser expects a result. */
	static void requireResult(List<Object> reply, String script) {
		if (asksForTopics(reply)) {
			throw new IllegalArgumentException(
					script + " asked for the keys of topics " + topicsAskedFor(reply) + " instead of answering; "
							+ "the caller must send it again with them declared before parsing its reply");
		}
	}

}
