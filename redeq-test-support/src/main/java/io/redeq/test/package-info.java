/**
 * Test support for redeq: starts real {@code redis-server} processes (never mocks, never
 * the machine's port 6379, never a fixed port) and wires them into JUnit 5 tests.
 *
 * <p>
 * Entry points: {@link io.redeq.test.RedisServer} for one server you drive yourself,
 * {@link io.redeq.test.RedisTest @RedisTest} for one server per test class with parameter
 * injection, and {@link io.redeq.test.RedisCluster} for a 3-master, 3-replica cluster.
 */
package io.redeq.test;
