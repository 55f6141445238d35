package io.redeq.internal.consumer;

import java.util.Set;

import io.redeq.NotRetryableException;

/**
 * The exception classes, by name, that make a failed job of a topic DEAD at once: an
 * error of one of them (or a subclass), or caused by one, is wrapped in a
 * {@link NotRetryableException}, which {@link JobOutcomes} buries without a retry.
 */
final class NotRetryableClasses {

	private static final int MAX_CAUSE_DEPTH = 32;

	private final String topic;

	private final Set<String> classNames;

	NotRetryableClasses(String topic, Set<String> classNames) {
		this.topic = topic;
		this.classNames = Set.copyOf(classNames);
	}

	/**
	 * The error, or a {@link NotRetryableException} around it when it is not retryable.
	 */
	Throwable classify(Throwable error) {
		if (error instanceof NotRetryableException || !matches(error)) {
			return error;
		}
		return new NotRetryableException(
				error.getClass().getName() + " is not retryable for topic '" + this.topic + "': " + error.getMessage(),
				error);
	}

	private boolean matches(Throwable error) {
		if (this.classNames.isEmpty()) {
			return false;
		}
		Throwable current = error;
		for (int depth = 0; current != null && depth < MAX_CAUSE_DEPTH; depth++) {
			for (Class<?> type = current.getClass(); type != null; type = type.getSuperclass()) {
				if (this.classNames.contains(type.getName())) {
					return true;
				}
			}
			current = current.getCause();
		}
		return false;
	}

}
