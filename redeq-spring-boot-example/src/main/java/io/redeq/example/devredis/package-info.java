/**
 * Starts a redis-server for the example when none answers, so that it runs on a fresh
 * machine.
 */
@NullMarked
package io.redeq.example.devredis;

import org.jspecify.annotations.NullMarked;
