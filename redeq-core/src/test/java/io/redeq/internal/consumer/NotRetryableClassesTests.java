package io.redeq.internal.consumer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Set;

import org.junit.jupiter.api.Test;

import io.redeq.NotRetryableException;

import static org.assertj.core.api.Assertions.assertThat;

class NotRetryableClassesTests {

	private final NotRetryableClasses classes = new NotRetryableClasses("report.build",
			Set.of(IllegalArgumentException.class.getName()));

	@Test
	void anErrorOfANamedClassOrASubclassBecomesNotRetryable() {
		NumberFormatException error = new NumberFormatException("not a number");

		Throwable classified = this.classes.classify(error);

		assertThat(classified).isInstanceOf(NotRetryableException.class)
			.hasCause(error)
			.hasMessageContaining("java.lang.NumberFormatException")
			.hasMessageContaining("report.build")
			.hasMessageContaining("not a number");
	}

	@Test
	void anErrorCausedByANamedClassBecomesNotRetryable() {
		IllegalStateException error = new IllegalStateException("wrapped", new IllegalArgumentException("bad"));

		assertThat(this.classes.classify(error)).isInstanceOf(NotRetryableException.class).hasCause(error);
	}

	@Test
	void otherErrorsAndNotRetryableOnesStayAsTheyAre() {
		IllegalStateException other = new IllegalStateException("busy");
		NotRetryableException already = new NotRetryableException("declined", new IllegalArgumentException());

		assertThat(this.classes.classify(other)).isSameAs(other);
		assertThat(this.classes.classify(already)).isSameAs(already);
		assertThat(new NotRetryableClasses("t", Set.of()).classify(new IllegalArgumentException())).isNotNull()
			.isInstanceOf(IllegalArgumentException.class);
	}

	@Test
	void aCauseCycleEndsTheWalk() {
		UncheckedIOException first = new UncheckedIOException("a", new IOException("b"));
		IllegalStateException cyclic = new IllegalStateException("c");
		first.getCause().initCause(cyclic);
		cyclic.initCause(first);

		assertThat(this.classes.classify(first)).isSameAs(first);
	}

}
