package io.redeq;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import io.lettuce.core.RedisClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Payloads that name classes (Jackson's {@code @class}/{@code @c} hints, the
 * default-typing array form, a gadget-like {@code java.net.URL}) are read as plain data
 * into the type the listener declares; no class named by the data is ever instantiated.
 */
@RedisTest
class PayloadTypeHintsIntegrationTests {

	private final RedisClient lettuce;

	private Redeq redeq;

	PayloadTypeHintsIntegrationTests(RedisClient lettuce) {
		this.lettuce = lettuce;
	}

	@BeforeEach
	void start() {
		this.redeq = Redeq.builder(this.lettuce).build();
		Gadget.created.set(0);
	}

	@AfterEach
	void stop() {
		this.redeq.close();
	}

	@Test
	void typeHintsInThePayloadNeverInstantiateTheNamedClass() {
		List<Object> asObject = new CopyOnWriteArrayList<>();
		List<Object> asMap = new CopyOnWriteArrayList<>();
		this.redeq.subscribe("as-object", Object.class, (payload, delivery) -> asObject.add(payload));
		this.redeq.subscribe("as-map", Map.class, (payload, delivery) -> asMap.add(payload));
		String gadget = Gadget.class.getName();
		List<Object> crafted = List.of(Map.of("@class", gadget, "command", "touch /tmp/pwned"),
				Map.of("@c", "." + Gadget.class.getSimpleName(), "command", "x"),
				Map.of("@class", "java.net.URL", "protocol", "http", "host", "attacker.example", "file", "/"),
				Map.of("@type", "java.lang.ProcessBuilder", "command", List.of("touch", "/tmp/pwned")));
		for (Object payload : crafted) {
			this.redeq.client().schedule("as-object", payload, Duration.ZERO);
			this.redeq.client().schedule("as-map", payload, Duration.ZERO);
		}
		// The default-typing wire form: ["class name", {...}]
		this.redeq.client().schedule("as-object", List.of(gadget, Map.of("command", "x")), Duration.ZERO);

		await().atMost(Duration.ofSeconds(10)).until(() -> asObject.size() == 5 && asMap.size() == 4);
		assertThat(asObject).allSatisfy((payload) -> assertThat(payload).isInstanceOfAny(Map.class, List.class));
		assertThat(asMap).allSatisfy((payload) -> assertThat(payload).isInstanceOf(Map.class));
		assertThat(asObject).noneMatch((payload) -> payload instanceof Gadget || payload instanceof java.net.URL);
		assertThat(asMap)
			.contains(Map.of("@class", "java.net.URL", "protocol", "http", "host", "attacker.example", "file", "/"));
		assertThat(Gadget.created).hasValue(0);
	}

	@Test
	void aTypeHintInAPayloadOfADeclaredTypeIsNotFollowed() {
		List<Object> received = new CopyOnWriteArrayList<>();
		this.redeq.subscribe("typed", Holder.class, (payload, delivery) -> received.add(payload));
		this.redeq.client()
			.schedule("typed", Map.of("value", Map.of("@class", Gadget.class.getName(), "command", "x")),
					Duration.ZERO);
		await().atMost(Duration.ofSeconds(10)).until(() -> received.size() == 1);
		assertThat(((Holder) received.get(0)).value()).isInstanceOf(Map.class);
		assertThat(Gadget.created).hasValue(0);
	}

	/**
	 * Counts its instances: if redeq ever followed a type hint to it, the count would
	 * move.
	 */
	public static class Gadget {

		static final AtomicInteger created = new AtomicInteger();

		public String command;

		Gadget() {
			created.incrementAndGet();
		}

	}

	/**
	 * A payload with an Object-typed field: the classic target of polymorphic-typing
	 * gadgets.
	 */
	public record Holder(Object value) {
	}

}
