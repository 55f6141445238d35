package io.redeq.spring.boot.autoconfigure;

import io.redeq.Redeq;

/**
 * Customizes the {@link Redeq.Builder} of the auto-configured engine after the
 * {@code redeq.*} properties were applied, for settings that have no property (such as an
 * instance id).
 *
 * @since 0.1.0
 */
@FunctionalInterface
public interface RedeqBuilderCustomizer {

	void customize(Redeq.Builder builder);

}
