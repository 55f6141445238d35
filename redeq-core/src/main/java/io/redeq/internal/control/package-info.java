/**
 * Operating a topic across every instance: pause and resume, and the rate limit on job
 * starts. The state lives in Redis; each instance only keeps a copy it refreshes. Not
 * API.
 */
@NullMarked
package io.redeq.internal.control;

import org.jspecify.annotations.NullMarked;
