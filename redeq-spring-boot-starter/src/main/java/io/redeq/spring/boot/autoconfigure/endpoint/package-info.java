/**
 * Auto-configuration of redeq's actuator endpoint.
 */
@NullMarked
package io.redeq.spring.boot.autoconfigure.endpoint;

import org.jspecify.annotations.NullMarked;
