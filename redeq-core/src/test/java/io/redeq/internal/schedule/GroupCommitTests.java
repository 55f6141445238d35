package io.redeq.internal.schedule;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link GroupCommit} on a fake sender whose calls the test answers by hand: which
 * requests go in which call, and what each caller gets.
 */
class GroupCommitTests {

	private final List<Call> calls = new ArrayList<>();

	private final GroupCommit<String, String, String> groups = new GroupCommit<>(3, 1, this::send,
			new GroupCommit.Finisher<>() {

				@Override
				public String finish(int bucket, String request, String outcome) {
					if (outcome.equals("refused")) {
						throw new IllegalStateException("refused " + request);
					}
					return bucket + ":" + request + "=" + outcome;
				}

				@Override
				public Throwable failure(String request, Throwable failure) {
					return new IllegalStateException("call of " + request + " failed", failure);
				}

			});

	private RuntimeException throwOnSend;

	@Test
	void aRequestForAnIdleBucketIsSentAtOnceAlone() {
		CompletableFuture<String> result = this.groups.submit(1, "a");

		assertThat(this.calls).singleElement().satisfies((call) -> {
			assertThat(call.bucket).isEqualTo(1);
			assertThat(call.requests).containsExactly("a");
		});
		this.calls.get(0).answer("ok");
		assertThat(result.join()).isEqualTo("1:a=ok");
	}

	@Test
	void requestsMadeWhileACallIsInFlightGoTogetherInTheNextInArrivalOrder() {
		CompletableFuture<String> a = this.groups.submit(0, "a");
		CompletableFuture<String> b = this.groups.submit(0, "b");
		CompletableFuture<String> c = this.groups.submit(0, "c");
		assertThat(this.calls).hasSize(1);
		assertThat(this.groups.waiting(0)).isEqualTo(2);

		this.calls.get(0).answer("first");

		assertThat(a.join()).isEqualTo("0:a=first");
		assertThat(this.calls).hasSize(2);
		assertThat(this.calls.get(1).requests).containsExactly("b", "c");
		assertThat(b).isNotDone();
		this.calls.get(1).answer("for-b", "for-c");
		assertThat(b.join()).isEqualTo("0:b=for-b");
		assertThat(c.join()).isEqualTo("0:c=for-c");
		// Nothing waits: the bucket is idle again and the next request goes at once.
		CompletableFuture<String> d = this.groups.submit(0, "d");
		assertThat(this.calls).hasSize(3);
		this.calls.get(2).answer("x");
		assertThat(d.join()).isEqualTo("0:d=x");
	}

	@Test
	void aCallCarriesAtMostTheLimitAndTheRestGoInTheCallAfter() {
		this.groups.submit(0, "first");
		List<CompletableFuture<String>> waiting = new ArrayList<>();
		for (String request : List.of("a", "b", "c", "d", "e")) {
			waiting.add(this.groups.submit(0, request));
		}

		this.calls.get(0).answer("ok");
		assertThat(this.calls.get(1).requests).containsExactly("a", "b", "c");
		this.calls.get(1).answer("1", "2", "3");
		assertThat(this.calls.get(2).requests).containsExactly("d", "e");
		this.calls.get(2).answer("4", "5");
		assertThat(waiting).extracting(CompletableFuture::join)
			.containsExactly("0:a=1", "0:b=2", "0:c=3", "0:d=4", "0:e=5");
	}

	@Test
	void bucketsDoNotWaitForEachOther() {
		this.groups.submit(0, "a");
		this.groups.submit(1, "b");

		assertThat(this.calls).extracting((call) -> call.bucket).containsExactly(0, 1);
	}

	@Test
	void anOutcomeTheFinisherRefusesFailsOnlyItsOwnCaller() {
		this.groups.submit(0, "first");
		CompletableFuture<String> a = this.groups.submit(0, "a");
		CompletableFuture<String> b = this.groups.submit(0, "b");
		CompletableFuture<String> c = this.groups.submit(0, "c");
		this.calls.get(0).answer("ok");

		this.calls.get(1).answer("ok", "refused", "ok");

		assertThat(a.join()).isEqualTo("0:a=ok");
		assertThatExceptionOfType(CompletionException.class).isThrownBy(b::join)
			.havingCause()
			.isInstanceOf(IllegalStateException.class)
			.withMessage("refused b");
		assertThat(c.join()).isEqualTo("0:c=ok");
	}

	@Test
	void aFailedCallFailsItsCallersOnlyAndTheNextCallIsSent() {
		CompletableFuture<String> first = this.groups.submit(0, "first");
		CompletableFuture<String> a = this.groups.submit(0, "a");
		CompletableFuture<String> b = this.groups.submit(0, "b");
		this.calls.get(0).answer("ok");
		CompletableFuture<String> later = this.groups.submit(0, "later");

		this.calls.get(1).fail(new IllegalArgumentException("boom"));

		assertThat(first.join()).isEqualTo("0:first=ok");
		for (CompletableFuture<String> failed : List.of(a, b)) {
			assertThatExceptionOfType(CompletionException.class).isThrownBy(failed::join)
				.havingCause()
				.withMessageStartingWith("call of ")
				.havingCause()
				.withMessage("boom");
		}
		assertThat(this.calls.get(2).requests).containsExactly("later");
		this.calls.get(2).answer("fine");
		assertThat(later.join()).isEqualTo("0:later=fine");
	}

	@Test
	void aSenderThatThrowsFailsThatCallAndTheWaitingOnesAreSentAfter() {
		this.groups.submit(0, "first");
		CompletableFuture<String> a = this.groups.submit(0, "a");
		this.throwOnSend = new IllegalStateException("closed");
		this.calls.get(0).answer("ok");
		assertThat(a).isCompletedExceptionally();

		this.throwOnSend = null;
		CompletableFuture<String> b = this.groups.submit(0, "b");
		assertThat(this.calls.get(this.calls.size() - 1).requests).containsExactly("b");
		this.calls.get(this.calls.size() - 1).answer("ok");
		assertThat(b.join()).isEqualTo("0:b=ok");
	}

	@Test
	void aCallAnsweringTheWrongNumberOfOutcomesFailsItsCallers() {
		this.groups.submit(0, "first");
		CompletableFuture<String> a = this.groups.submit(0, "a");
		CompletableFuture<String> b = this.groups.submit(0, "b");
		this.calls.get(0).answer("ok");

		this.calls.get(1).answer("only one");

		assertThat(a).isCompletedExceptionally();
		assertThat(b).isCompletedExceptionally();
	}

	@Test
	void withTwoCallsAllowedInFlightTheSecondGoesAtOnceAndTheThirdWaits() {
		GroupCommit<String, String, String> two = new GroupCommit<>(3, 2, this::send, new GroupCommit.Finisher<>() {

			@Override
			public String finish(int bucket, String request, String outcome) {
				return request + "=" + outcome;
			}

			@Override
			public Throwable failure(String request, Throwable failure) {
				return failure;
			}

		});
		CompletableFuture<String> a = two.submit(0, "a");
		CompletableFuture<String> b = two.submit(0, "b");
		CompletableFuture<String> c = two.submit(0, "c");
		CompletableFuture<String> d = two.submit(0, "d");
		assertThat(this.calls).extracting(Call::requests).containsExactly(List.of("a"), List.of("b"));
		assertThat(two.waiting(0)).isEqualTo(2);

		this.calls.get(1).answer("2");
		assertThat(b.join()).isEqualTo("b=2");
		assertThat(this.calls.get(2).requests).containsExactly("c", "d");
		this.calls.get(0).answer("1");
		this.calls.get(2).answer("3", "4");
		assertThat(List.of(a, c, d)).extracting(CompletableFuture::join).containsExactly("a=1", "c=3", "d=4");
		// Both calls answered and nothing waits: the next two go at once.
		two.submit(0, "e");
		two.submit(0, "f");
		assertThat(this.calls).hasSize(5);
	}

	@Test
	void limitsBelowOneAreRefused() {
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> new GroupCommit<String, String, String>(0, 1, this::send, null))
			.withMessageContaining("at least 1, was 0");
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> new GroupCommit<String, String, String>(1, 0, this::send, null))
			.withMessageContaining("in flight per bucket must be at least 1, was 0");
	}

	private CompletableFuture<List<String>> send(int bucket, List<String> requests) {
		if (this.throwOnSend != null) {
			throw this.throwOnSend;
		}
		Call call = new Call(bucket, List.copyOf(requests), new CompletableFuture<>());
		this.calls.add(call);
		return call.reply;
	}

	private record Call(int bucket, List<String> requests, CompletableFuture<List<String>> reply) {

		void answer(String... outcomes) {
			this.reply.complete(List.of(outcomes));
		}

		void fail(Throwable failure) {
			this.reply.completeExceptionally(failure);
		}

	}

}
