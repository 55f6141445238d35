package io.redeq.internal.redis;

import java.util.List;

import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link KeySpace}. Bucket numbers and tags are part of redeq's data format:
 * jobs already in Redis are found only where these values say, so the expected values
 * below are fixed on purpose. A change that breaks them strands stored jobs and needs a
 * format upgrade, not a new expected value.
 */
class KeySpaceTests {

	private final KeySpace sixteen = new KeySpace("redeq", 16);

	@Test
	void bucketOfIsFixed() {
		assertThat(this.sixteen.bucketOf("order.timeout:order-42")).isEqualTo(4);
		assertThat(this.sixteen.bucketOf("t:1")).isEqualTo(6);
		assertThat(this.sixteen.bucketOf("reminder:r-7")).isEqualTo(15);
		assertThat(this.sixteen.bucketOf("a:")).isEqualTo(5);
		assertThat(this.sixteen.bucketOf("mail.send:m-7")).isEqualTo(4);
		assertThat(this.sixteen.bucketOf("t:ü-€")).isEqualTo(11);
		KeySpace most = new KeySpace("redeq", 1024);
		assertThat(most.bucketOf("order.timeout:order-42")).isEqualTo(852);
		assertThat(most.bucketOf("t:1")).isEqualTo(742);
		assertThat(most.bucketOf("reminder:r-7")).isEqualTo(911);
		assertThat(most.bucketOf("t:ü-€")).isEqualTo(347);
	}

	@Test
	void bucketOfDependsOnTheJobKeyOnlyNotThePrefix() {
		assertThat(new KeySpace("shop", 16).bucketOf("order.timeout:order-42"))
			.isEqualTo(this.sixteen.bucketOf("order.timeout:order-42"));
	}

	@Test
	void oneBucketHoldsEveryJob() {
		KeySpace one = new KeySpace("redeq", 1);
		assertThat(one.bucketOf("order.timeout:order-42")).isZero();
		assertThat(one.bucketOf("reminder:r-7")).isZero();
	}

	@Test
	void bucketOfSpreadsSequentialIdsEvenly() {
		int[] counts = new int[16];
		for (int i = 0; i < 16_000; i++) {
			counts[this.sixteen.bucketOf(KeySpace.jobKey("t", Integer.toString(i)))]++;
		}
		for (int count : counts) {
			assertThat(count).isBetween(850, 1150);
		}
	}

	@Test
	void tagsAreFixed() {
		assertThat(this.sixteen.tag(0)).isEqualTo("{redeq:0:12}");
		assertThat(this.sixteen.tag(1)).isEqualTo("{redeq:1:11}");
		assertThat(this.sixteen.tag(7)).isEqualTo("{redeq:7:41}");
		assertThat(this.sixteen.tag(15)).isEqualTo("{redeq:15:41}");
	}

	@Test
	void eachBucketsSlotLiesInItsShareOfTheClusterSlots() {
		KeySpace four = new KeySpace("shop", 4);
		assertThat(four.tag(0)).isEqualTo("{shop:0:0}");
		assertThat(four.tag(1)).isEqualTo("{shop:1:2}");
		assertThat(four.tag(2)).isEqualTo("{shop:2:0}");
		assertThat(four.tag(3)).isEqualTo("{shop:3:2}");
		for (KeySpace keys : new KeySpace[] { four, this.sixteen, new KeySpace("redeq", 1024) }) {
			int share = SlotHash.SLOT_COUNT / keys.buckets();
			for (int b = 0; b < keys.buckets(); b++) {
				assertThat(SlotHash.getSlot(keys.tag(b))).as(keys.tag(b)).isBetween(b * share, (b + 1) * share - 1);
			}
		}
	}

	@Test
	void everyKeyOfABucketSharesItsTag() {
		String tag = this.sixteen.tag(3);
		assertThat(this.sixteen.bucketKeys(3)).allSatisfy((key) -> assertThat(key).startsWith(tag + ":"));
		assertThat(this.sixteen.bucketKeys(3)).containsExactly(tag + ":payload", tag + ":due", tag + ":lease",
				tag + ":died", tag + ":error", tag + ":count", tag + ":lock");
		assertThat(this.sixteen.readyKey(3, "t")).isEqualTo("{redeq:3:22}:ready:t");
		assertThat(this.sixteen.deadKey(3, "t")).isEqualTo("{redeq:3:22}:dead:t");
	}

	@Test
	void namedKeysAreTheBucketKeysAtThePreludesPositions() {
		String[] fixed = this.sixteen.bucketKeys(3);
		assertThat(new String[] { this.sixteen.payloadKey(3), this.sixteen.dueKey(3), this.sixteen.leaseKey(3),
				this.sixteen.diedKey(3), this.sixteen.errorKey(3), this.sixteen.countKey(3), this.sixteen.lockKey(3) })
			.containsExactly(fixed);
	}

	@Test
	void aJobScriptDeclaresTheFixedKeysThenReadyAndDeadPerTopic() {
		String tag = this.sixteen.tag(3);
		assertThat(this.sixteen.jobScriptKeys(3, List.of("a", "b"))).startsWith(this.sixteen.bucketKeys(3))
			.endsWith(tag + ":ready:a", tag + ":dead:a", tag + ":ready:b", tag + ":dead:b")
			.hasSize(11);
		assertThat(this.sixteen.jobScriptKeys(3, List.of())).containsExactly(this.sixteen.bucketKeys(3));
	}

	@Test
	void firstFormatKeysAreFixed() {
		String tag = this.sixteen.tag(3);
		assertThat(this.sixteen.formatOneScriptKeys(3)).containsExactly(tag + ":jobs", tag + ":delayed",
				tag + ":inflight", tag + ":dead", tag + ":errors");
		assertThat(this.sixteen.formatOneKeys(3)).containsExactly(tag + ":jobs", tag + ":delayed", tag + ":inflight",
				tag + ":dead", tag + ":errors", tag + ":counts");
		assertThat(this.sixteen.formatOneJobsKey(3)).isEqualTo(tag + ":jobs");
		assertThat(this.sixteen.formatOneCountsKey(3)).isEqualTo(tag + ":counts");
	}

	@Test
	void prefixWideKeysAreFixed() {
		assertThat(this.sixteen.metaKey()).isEqualTo("redeq:meta");
		assertThat(this.sixteen.instancesKey()).isEqualTo("redeq:instances");
		assertThat(this.sixteen.wakeChannel()).isEqualTo("redeq:wake");
		assertThat(this.sixteen.signalKey("order.timeout")).isEqualTo("redeq:signal:order.timeout");
		assertThat(KeySpace.jobKey("order.timeout", "order-42")).isEqualTo("order.timeout:order-42");
		assertThat(KeySpace.topicOf("order.timeout:order:42")).isEqualTo("order.timeout");
	}

}
