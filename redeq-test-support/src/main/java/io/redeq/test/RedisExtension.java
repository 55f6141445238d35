package io.redeq.test;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit extension behind {@link RedisTest @RedisTest}: starts one {@link RedisServer} per
 * test class, flushes it before each test, and resolves parameters of type
 * {@link RedisServer}, {@link RedisClient} and {@link RedisURI} (in constructors,
 * lifecycle and test methods).
 *
 * <p>
 * The server and the client live in the test class's {@link ExtensionContext.Store};
 * JUnit closes {@link AutoCloseable} store values when the class is done, even if a test
 * failed, so the client is shut down and the server stopped and deleted. (JUnit 6
 * deprecates {@code Store.CloseableResource} in favour of exactly this.) {@code @Nested}
 * classes share their enclosing class's server.
 *
 * <p>
 * If a test stopped or killed the server (say, to test reconnects), it is started again,
 * on the same port, before the next test.
 */
public class RedisExtension implements BeforeAllCallback, BeforeEachCallback, ParameterResolver {

	private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(RedisExtension.class);

	@Override
	public void beforeAll(ExtensionContext context) {
		resources(context);
	}

	@Override
	public void beforeEach(ExtensionContext context) {
		RedisServer server = resources(context).server();
		server.start(); // no-op unless the previous test stopped it
		server.flushAll();
	}

	@Override
	public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
		Class<?> type = parameterContext.getParameter().getType();
		return type == RedisServer.class || type == RedisClient.class || type == RedisURI.class;
	}

	@Override
	public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
		Class<?> type = parameterContext.getParameter().getType();
		Resources resources = resources(extensionContext);
		if (type == RedisServer.class) {
			return resources.server();
		}
		if (type == RedisClient.class) {
			return resources.client();
		}
		return resources.server().uri();
	}

	/**
	 * The class's server and client, created on first use. Parameters may be resolved
	 * before {@code beforeAll} (a constructor under {@code PER_CLASS} lifecycle), hence
	 * created lazily, and always in the class-level store, never in a method's, which
	 * would close them too early.
	 */
	private static Resources resources(ExtensionContext context) {
		ExtensionContext classContext = context;
		while (classContext.getTestMethod().isPresent() && classContext.getParent().isPresent()) {
			classContext = classContext.getParent().get();
		}
		return classContext.getStore(NAMESPACE)
			.computeIfAbsent(Resources.class, (key) -> Resources.start(), Resources.class);
	}

	/** One test class's Redis: the server and a client for it, closed together. */
	record Resources(RedisServer server, RedisClient client) implements AutoCloseable {

		static Resources start() {
			RedisServer server = new RedisServer().start();
			try {
				return new Resources(server, RedisClient.create(server.uri()));
			}
			catch (RuntimeException ex) {
				server.close();
				throw ex;
			}
		}

		@Override
		public void close() {
			try {
				this.client.shutdown();
			}
			finally {
				this.server.close();
			}
		}

	}

}
