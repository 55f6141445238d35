package io.redeq.spring.boot.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

import io.redeq.BucketCountMismatchException;

/**
 * Reports a {@code redeq.buckets} value that differs from the count recorded in Redis.
 */
class BucketCountMismatchFailureAnalyzer extends AbstractFailureAnalyzer<BucketCountMismatchException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, BucketCountMismatchException cause) {
		return new FailureAnalysis(cause.getMessage(), "Set redeq.buckets=" + cause.recorded()
				+ ", or reshard the prefix to " + cause.configured() + " buckets with every instance stopped.", cause);
	}

}
