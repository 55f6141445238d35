/**
 * redeq's actuator endpoint.
 */
@NullMarked
package io.redeq.spring.internal.endpoint;

import org.jspecify.annotations.NullMarked;
