package io.redeq.spring.listener;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.UndeclaredThrowableException;

import org.jspecify.annotations.Nullable;

import io.redeq.Delivery;
import io.redeq.JobHandler;

/**
 * Runs a job by invoking its listener method. The method's own exception is rethrown as
 * is, not wrapped in {@link InvocationTargetException}, so that retries and dead letters
 * record the real cause.
 */
final class ListenerMethodHandler implements JobHandler<@Nullable Object> {

	private final ListenerMethod listener;

	ListenerMethodHandler(ListenerMethod listener) {
		this.listener = listener;
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
			if (cause instanceof Exception exception) {
				throw exception;
			}
			if (cause instanceof Error error) {
				throw error;
			}
			throw new UndeclaredThrowableException(cause);
		}
	}

	@Override
	public String toString() {
		return this.listener.description();
	}

}
