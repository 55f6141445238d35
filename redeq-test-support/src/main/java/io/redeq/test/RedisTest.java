package io.redeq.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs a test class against its own real Redis server, via {@link RedisExtension}: one
 * {@link RedisServer} per class, {@code FLUSHALL} before each test, and
 * {@link RedisServer}, {@link io.lettuce.core.RedisClient} and
 * {@link io.lettuce.core.RedisURI} parameters injected.
 *
 * <pre class="code">
 * &#64;RedisTest
 * class QueueIntegrationTests {
 *     &#64;Test
 *     void enqueues(RedisClient client) { ... }
 * }
 * </pre>
 */
@Target({ ElementType.TYPE, ElementType.ANNOTATION_TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(RedisExtension.class)
public @interface RedisTest {

}
