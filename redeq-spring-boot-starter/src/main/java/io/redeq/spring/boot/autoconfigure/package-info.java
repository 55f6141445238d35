/**
 * Auto-configuration of redeq from the application's own Redis connection and its
 * {@code redeq.*} properties.
 *
 * <p>
 * Configuration, not API. As in Spring Boot, the auto-configuration classes are public so
 * that an application can exclude one by name, and {@link RedeqProperties},
 * {@link RedeqBuilderCustomizer} and {@link JournalSchemaInitializer} are public for
 * binding, customising and replacing; their other members may change in any version. The
 * types a user programs against are in {@code io.redeq} and {@code io.redeq.spring};
 * internals are under {@code io.redeq.spring.internal}.
 */
@NullMarked
package io.redeq.spring.boot.autoconfigure;

import org.jspecify.annotations.NullMarked;
