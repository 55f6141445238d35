package io.redeq.spring.internal.listener;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.UndeclaredThrowableException;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import io.redeq.Delivery;
import io.redeq.JobHandler;
import io.redeq.NotRetryableException;

/**
 * Runs a job by invoking its listener method. The method's own exception is rethrown as
 * is, not wrapped in {@link InvocationTargetException}, so that retries and dead letters
 * record the real cause; one of the topic's not-retryable classes (or caused by one) is
 * wrapped in a {@link NotRetryableException}, which sends the job to DEAD at once.
 */
final class ListenerMethodHandler implements JobHandler<@Nullable Object> {

	private static final int MAX_CAUSE_DEPTH = 32;

	private final ListenerMethod listener;

	private final Set<String> notRetryable;

	ListenerMethodHandler(ListenerMethod listener) {
		this(listener, Set.of());
	}

	ListenerMethodHandler(ListenerMethod listener, Set<String> notRetryable) {
		this.listener = listener;
		this.notRetryable = notRetryable;
	}

	@Override
	public void handle(@Nullable Object payload, Delivery delivery) throws Exception {
		@Nullable Object[] args = new Object[this.listener.method().getParameterCount()];
		args[this.listener.payloadIndex()] = payload;
		if (this.listener.deliveryIndex() >= 0) {
			args[this.listener.deliveryIndex()] = delivery;
		}
		try {
			this.listener.method().invoke(this.listener.bean(), args);
		}
		catch (InvocationTargetException ex) {
			Throwable cause = ex.getTargetException();
			if (isNotRetryable(cause)) {
				throw new NotRetryableException(cause.getClass().getName() + " is not retryable for topic '"
						+ this.listener.topic() + "': " + cause.getMessage(), cause);
			}
			if (cause instanceof Exception exception) {
				throw exception;
			}
			if (cause instanceof Error error) {
				throw error;
			}
			throw new UndeclaredThrowableException(cause);
		}
	}

	/**
	 * Whether the error, or one of its causes, is of a not-retryable class or a subclass.
	 */
	private boolean isNotRetryable(Throwable error) {
		if (this.notRetryable.isEmpty()) {
			return false;
		}
		Throwable current = error;
		for (int depth = 0; current != null && depth < MAX_CAUSE_DEPTH; depth++) {
			for (Class<?> type = current.getClass(); type != null; type = type.getSuperclass()) {
				if (this.notRetryable.contains(type.getName())) {
					return true;
				}
			}
			current = current.getCause();
		}
		return false;
	}

	@Override
	public String toString() {
		return this.listener.description();
	}

}
