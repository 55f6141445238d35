/**
 * redeq's actuator endpoint. Not API.
 */
@NullMarked
package io.redeq.spring.internal.endpoint;

import org.jspecify.annotations.NullMarked;
