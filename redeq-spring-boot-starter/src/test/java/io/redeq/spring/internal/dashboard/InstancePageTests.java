package io.redeq.spring.internal.dashboard;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How the instances page writes an instance's buckets: a count and ranges, since an
 * instance may own hundreds.
 */
class InstancePageTests {

	@Test
	void bucketsAreACountAndRanges() {
		assertThat(InstancePage.buckets(List.of())).isEqualTo("none");
		assertThat(InstancePage.buckets(List.of(7))).isEqualTo("1: 7");
		assertThat(InstancePage.buckets(List.of(0, 1, 2, 3, 8, 10, 11))).isEqualTo("7: 0–3, 8, 10–11");
	}

}
