package io.redeq.internal.observation;

import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link TraceContext}: what is stored in a job's record head must never hold
 * the {@code '|'} that starts the payload, and must come back as it was.
 */
class TraceContextTests {

	private static final String PARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

	@Test
	void storesTraceparentAlone() {
		assertThat(TraceContext.encode(Map.of("traceparent", PARENT))).isEqualTo(PARENT);
		assertThat(TraceContext.decode(PARENT)).containsExactly(Map.entry("traceparent", PARENT));
	}

	@Test
	void tracestateWithSpacesBarsAndPercentsRoundTripsWithoutABar() {
		String state = "vendor=a|b c%20,other=x+y";
		String stored = TraceContext.encode(Map.of("traceparent", PARENT, "tracestate", state));

		assertThat(stored).doesNotContain("|").startsWith(PARENT + " ");
		assertThat(stored.substring(PARENT.length() + 1)).doesNotContain(" ");
		assertThat(TraceContext.decode(stored)).containsEntry("traceparent", PARENT).containsEntry("tracestate", state);
	}

	@Test
	void storesNothingWithoutAWellFormedTraceparent() {
		assertThat(TraceContext.encode(Map.of())).isNull();
		assertThat(TraceContext.encode(Map.of("b3", "abc-def-1"))).isNull();
		assertThat(TraceContext.encode(Map.of("traceparent", "00-abc|x"))).isNull();
		assertThat(TraceContext.decode(null)).isEmpty();
		assertThat(TraceContext.decode("")).isEmpty();
	}

}
