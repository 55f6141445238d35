package io.redeq;

import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CopyOnWriteArrayList;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.sync.RedisCommands;
import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;
import io.micrometer.tracing.otel.bridge.ArrayListSpanProcessor;
import io.micrometer.tracing.otel.bridge.OtelCurrentTraceContext;
import io.micrometer.tracing.otel.bridge.OtelPropagator;
import io.micrometer.tracing.otel.bridge.OtelTracer;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.redeq.internal.redis.KeySpace;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Micrometer Observation end to end on a real redis-server, with an OpenTelemetry tracer
 * bridged to Micrometer Tracing and W3C propagation, as Spring Boot sets it up: the
 * handler's span continues the trace of the request that scheduled the job, and with
 * observation off nothing is stored beside the payload.
 */
@RedisTest
class TracingIntegrationTests {

	private static final Duration WAIT = Duration.ofSeconds(30);

	private final RedisClient lettuce;

	private final ArrayListSpanProcessor spans = new ArrayListSpanProcessor();

	private OtelTracer tracer;

	private ObservationRegistry registry;

	private SdkTracerProvider provider;

	private Redeq redeq;

	TracingIntegrationTests(RedisClient lettuce) {
		this.lettuce = lettuce;
	}

	@BeforeEach
	void tracer() {
		this.provider = SdkTracerProvider.builder().setSampler(Sampler.alwaysOn()).addSpanProcessor(this.spans).build();
		ContextPropagators propagators = ContextPropagators.create(W3CTraceContextPropagator.getInstance());
		OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
			.setTracerProvider(this.provider)
			.setPropagators(propagators)
			.build();
		io.opentelemetry.api.trace.Tracer otel = sdk.getTracerProvider().get("redeq-test");
		this.tracer = new OtelTracer(otel, new OtelCurrentTraceContext(), (event) -> {
		});
		OtelPropagator propagator = new OtelPropagator(propagators, otel);
		this.registry = ObservationRegistry.create();
		this.registry.observationConfig()
			.observationHandler(new ObservationHandler.FirstMatchingCompositeObservationHandler(
					new PropagatingSenderTracingObservationHandler<>(this.tracer, propagator),
					new PropagatingReceiverTracingObservationHandler<>(this.tracer, propagator),
					new DefaultTracingObservationHandler(this.tracer)));
	}

	@AfterEach
	void close() {
		if (this.redeq != null) {
			this.redeq.close();
		}
		this.provider.close();
	}

	@Test
	void theHandlersSpanContinuesTheTraceThatScheduledTheJob() {
		this.redeq = Redeq.builder(this.lettuce).prefix("traced").observationRegistry(this.registry).build();
		List<String> traceSeenByHandler = new CopyOnWriteArrayList<>();
		this.redeq.subscribe("order.timeout", String.class, (payload, delivery) -> {
			Span current = this.tracer.currentSpan();
			traceSeenByHandler
				.add((current != null) ? current.context().traceId() + "/" + current.context().spanId() : "no span");
		});

		Observation request = Observation.start("http.server.requests", this.registry);
		String id;
		try (Observation.Scope scope = request.openScope()) {
			id = this.redeq.client().schedule("order.timeout", "order-42", Duration.ofMillis(200));
		}
		request.stop();

		await().atMost(WAIT).until(() -> spanOfKind(SpanKind.CONSUMER) != null);
		SpanData http = this.spans.spans()
			.stream()
			.filter((s) -> s.getName().equals("http.server.requests"))
			.findFirst()
			.orElseThrow();
		SpanData schedule = spanOfKind(SpanKind.PRODUCER);
		SpanData process = spanOfKind(SpanKind.CONSUMER);
		assertThat(schedule.getName()).isEqualTo("order.timeout schedule");
		assertThat(schedule.getParentSpanId()).isEqualTo(http.getSpanId());
		assertThat(process.getName()).isEqualTo("order.timeout process");
		assertThat(process.getTraceId()).isEqualTo(http.getTraceId());
		assertThat(process.getParentSpanId()).isEqualTo(schedule.getSpanId());
		assertThat(process.getAttributes().asMap()).anySatisfy((key, value) -> {
			assertThat(key.getKey()).isEqualTo("job.id");
			assertThat(value).isEqualTo(id);
		});
		assertThat(traceSeenByHandler).containsExactly(process.getTraceId() + "/" + process.getSpanId());
	}

	@Test
	void everyAttemptOfARetriedJobIsASpanUnderTheSameScheduleSpan() {
		this.redeq = Redeq.builder(this.lettuce).prefix("retried").observationRegistry(this.registry).build();
		this.redeq.subscribe("flaky", String.class, (payload, delivery) -> {
			if (delivery.attempt() == 1) {
				throw new IllegalStateException("first attempt fails");
			}
		}, SubscriptionOptions.builder()
			.maxAttempts(2)
			.backoff(new Backoff(Duration.ofMillis(50), 1.0, Duration.ofMillis(50), 0.0))
			.build());

		this.redeq.client().schedule("flaky", "x", Duration.ZERO);

		await().atMost(WAIT).until(() -> spansOfKind(SpanKind.CONSUMER).size() == 2);
		SpanData schedule = spanOfKind(SpanKind.PRODUCER);
		assertThat(spansOfKind(SpanKind.CONSUMER)).allSatisfy((attempt) -> {
			assertThat(attempt.getTraceId()).isEqualTo(schedule.getTraceId());
			assertThat(attempt.getParentSpanId()).isEqualTo(schedule.getSpanId());
		}).extracting((attempt) -> attempt.getStatus().getStatusCode().name()).containsExactly("ERROR", "UNSET");
	}

	@Test
	void theTraceContextIsStoredBesideThePayloadOnlyWithObservationOn() {
		try (Redeq on = Redeq.builder(this.lettuce).prefix("on").observationRegistry(this.registry).build();
				Redeq off = Redeq.builder(this.lettuce).prefix("off").build()) {
			Observation request = Observation.start("http.server.requests", this.registry);
			try (Observation.Scope scope = request.openScope()) {
				on.client().schedule(Job.builder("t").id("traced").payload("p").delay(Duration.ofHours(1)).build());
				off.client().schedule(Job.builder("t").id("plain").payload("p").delay(Duration.ofHours(1)).build());
			}
			request.stop();
		}
		SpanData schedule = spanOfKind(SpanKind.PRODUCER);

		assertThat(storedRecord("on", "t:traced")).matches(
				"[0-9A-Za-z_-]{7} 00-" + schedule.getTraceId() + "-" + schedule.getSpanId() + "-[0-9a-f]{2}\\|\"p\"");
		assertThat(storedRecord("off", "t:plain")).matches("[0-9A-Za-z_-]{7}\\|\"p\"");
	}

	@Test
	void withoutATracerNothingIsStored() {
		TestObservationRegistry observations = TestObservationRegistry.create();
		try (Redeq redeq = Redeq.builder(this.lettuce).prefix("untraced").observationRegistry(observations).build()) {
			redeq.client().schedule(Job.builder("t").id("a").payload("p").delay(Duration.ofHours(1)).build());
		}

		assertThat(storedRecord("untraced", "t:a")).matches("[0-9A-Za-z_-]{7}\\|\"p\"");
		TestObservationRegistryAssert.assertThat(observations)
			.hasObservationWithNameEqualTo("redeq.schedule")
			.that()
			.hasLowCardinalityKeyValue("topic", "t")
			.hasHighCardinalityKeyValue("job.id", "a")
			.hasBeenStopped();
	}

	@Test
	void conventionsAreOverridableAndAFailingHandlerMarksItsObservation() {
		TestObservationRegistry observations = TestObservationRegistry.create();
		RedeqScheduleObservationConvention renamed = new DefaultRedeqScheduleObservationConvention() {

			@Override
			public String getName() {
				return "orders.enqueue";
			}

			@Override
			public KeyValues getLowCardinalityKeyValues(RedeqScheduleContext context) {
				return super.getLowCardinalityKeyValues(context).and("team", "billing");
			}

		};
		this.redeq = Redeq.builder(this.lettuce)
			.prefix("conventions")
			.observationRegistry(observations)
			.scheduleObservationConvention(renamed)
			.build();
		this.redeq.subscribe("fails", String.class, (payload, delivery) -> {
			throw new IllegalStateException("handler broke");
		}, SubscriptionOptions.builder().maxAttempts(1).build());

		this.redeq.client().async().schedule("fails", "x", Duration.ZERO).join();

		TestObservationRegistryAssert.assertThat(observations)
			.hasObservationWithNameEqualTo("orders.enqueue")
			.that()
			.hasLowCardinalityKeyValue("team", "billing")
			.hasLowCardinalityKeyValue("topic", "fails");
		await().atMost(WAIT)
			.untilAsserted(() -> TestObservationRegistryAssert.assertThat(observations)
				.hasObservationWithNameEqualTo("redeq.process")
				.that()
				.hasContextualNameEqualTo("fails process")
				.hasLowCardinalityKeyValue("topic", "fails")
				.hasHighCardinalityKeyValue("job.attempt", "1")
				.hasBeenStopped()
				.assertThatError()
				.hasMessage("handler broke"));
	}

	private List<SpanData> spansOfKind(SpanKind kind) {
		return this.spans.spans().stream().filter((span) -> span.getKind() == kind).toList();
	}

	private SpanData spanOfKind(SpanKind kind) {
		Queue<SpanData> all = this.spans.spans();
		return all.stream().filter((span) -> span.getKind() == kind).findFirst().orElse(null);
	}

	private String storedRecord(String prefix, String jobKey) {
		KeySpace keys = new KeySpace(prefix, 16);
		try (var connection = this.lettuce.connect()) {
			RedisCommands<String, String> redis = connection.sync();
			return redis.hget(keys.tag(keys.bucketOf(jobKey)) + ":payload", jobKey);
		}
	}

}
