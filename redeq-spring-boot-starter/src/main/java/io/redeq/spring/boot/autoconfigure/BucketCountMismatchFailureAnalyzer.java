package io.redeq.spring.boot.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

import io.redeq.BucketCountMismatchException;

/**
 * Reports a {@code redeq.buckets} value that differs from the count recorded in Redis,
 * which an instance meets only when Redis could not be read before the engine was built
 * (otherwise it follows the recorded count).
 */
class BucketCountMismatchFailureAnalyzer extends AbstractFailureAnalyzer<BucketCountMismatchException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, BucketCountMismatchException cause) {
		return new FailureAnalysis(cause.getMessage(), "Set redeq.buckets=" + cause.recorded()
				+ ", or restart the application: an instance that reads the recorded count before it starts follows it"
				+ " (Redis was not reachable when this one was built). To change the count, use "
				+ "RedeqAdmin.changeBucketCount with every instance stopped.", cause);
	}

}
