/**
 * redeq's actuator endpoint.
 */
@NullMarked
package io.redeq.spring.boot.actuate.endpoint;

import org.jspecify.annotations.NullMarked;
