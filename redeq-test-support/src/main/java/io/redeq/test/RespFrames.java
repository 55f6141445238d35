package io.redeq.test;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Finds where RESP2/RESP3 values end in a byte stream, one byte at a time, without
 * building them: {@link FaultProxy} counts commands and replies with it. A request is an
 * array of bulk strings; replies may be any RESP3 type. Attributes ({@code |}) are
 * skipped, not counted, as RESP3 says; a top-level push ({@code >}) is reported as one,
 * since it answers no command.
 */
final class RespFrames {

	/** What {@link #next(int)} found at a byte. */
	enum Step {

		/** The byte is inside a value. */
		INSIDE,

		/** The byte ends a top-level value that answers (or is) a command. */
		VALUE,

		/** The byte ends a top-level push message. */
		PUSH

	}

	private final StringBuilder line = new StringBuilder();

	/** Per open aggregate: elements left, and its type. */
	private final Deque<long[]> open = new ArrayDeque<>();

	private long bulkLeft = -1;

	private boolean previousWasCr;

	Step next(int b) {
		if (this.bulkLeft > 0) {
			this.bulkLeft--;
			return (this.bulkLeft == 0) ? valueEnded('$') : Step.INSIDE;
		}
		if (b == '\n' && this.previousWasCr) {
			this.previousWasCr = false;
			return lineEnded();
		}
		if (this.previousWasCr) {
			this.line.append('\r');
		}
		this.previousWasCr = (b == '\r');
		if (!this.previousWasCr) {
			this.line.append((char) b);
		}
		return Step.INSIDE;
	}

	private Step lineEnded() {
		String text = this.line.toString();
		this.line.setLength(0);
		if (text.isEmpty()) {
			throw new IllegalStateException("Empty RESP line");
		}
		char type = text.charAt(0);
		switch (type) {
			case '$', '=', '!' -> {
				long length = Long.parseLong(text.substring(1));
				if (length < 0) {
					return valueEnded(type);
				}
				this.bulkLeft = length + 2; // the body and its CRLF
				return Step.INSIDE;
			}
			case '*', '~', '>', '%', '|' -> {
				long count = Long.parseLong(text.substring(1));
				long elements = (type == '%' || type == '|') ? 2 * count : count;
				if (elements <= 0) {
					return valueEnded(type);
				}
				this.open.push(new long[] { elements, type });
				return Step.INSIDE;
			}
			default -> {
				return valueEnded(type); // + - : _ , # ( and inline commands
			}
		}
	}

	private Step valueEnded(char type) {
		char ended = type;
		while (!this.open.isEmpty()) {
			long[] parent = this.open.peek();
			if (--parent[0] > 0) {
				return Step.INSIDE;
			}
			this.open.pop();
			ended = (char) parent[1];
			if (ended == '|') {
				return Step.INSIDE; // an attribute; the value it describes follows
			}
		}
		return (ended == '>') ? Step.PUSH : Step.VALUE;
	}

}
