package io.redeq.spring.internal.journal;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
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
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.redeq.Job;
import io.redeq.Redeq;
import io.redeq.RedeqClient;
import io.redeq.spring.boot.autoconfigure.RedeqAutoConfiguration;
import io.redeq.spring.boot.autoconfigure.RedeqJournalAutoConfiguration;
import io.redeq.test.RedisServer;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With observation on, a job scheduled in a transaction keeps the trace of the request
 * that scheduled it whichever way it reaches Redis: sent after the commit, or by the
 * outbox relay because the process that committed it died before its send. The scheduling
 * is observed once, at the commit, on the request's thread.
 */
@RedisTest
class JournalTracingIntegrationTests {

	private final ApplicationContextRunner runner;

	private final ArrayListSpanProcessor spans = new ArrayListSpanProcessor();

	private SdkTracerProvider provider;

	private OtelTracer tracer;

	private ObservationRegistry registry;

	JournalTracingIntegrationTests(RedisServer redis) {
		this.runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
					DataSourceAutoConfiguration.class, DataSourceTransactionManagerAutoConfiguration.class,
					RedeqAutoConfiguration.class, RedeqJournalAutoConfiguration.class))
			.withBean(ObservationRegistry.class, () -> this.registry)
			.withPropertyValues("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port(),
					"spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";MODE=PostgreSQL;DB_CLOSE_DELAY=-1",
					"redeq.consumer.poll-interval=100ms", "redeq.journal.enabled=true",
					"redeq.observation.enabled=true");
	}

	@BeforeEach
	void tracer() {
		this.provider = SdkTracerProvider.builder().setSampler(Sampler.alwaysOn()).addSpanProcessor(this.spans).build();
		ContextPropagators propagators = ContextPropagators.create(W3CTraceContextPropagator.getInstance());
		OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
			.setTracerProvider(this.provider)
			.setPropagators(propagators)
			.build();
		io.opentelemetry.api.trace.Tracer otel = sdk.getTracerProvider().get("redeq-journal-test");
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
		this.provider.close();
	}

	@Test
	void aJobSentAfterTheCommitOrByTheRelayContinuesTheTraceThatScheduledIt() {
		this.runner.run((context) -> {
			List<String> traces = new CopyOnWriteArrayList<>();
			context.getBean(Redeq.class).subscribe("traced", String.class, (payload, delivery) -> {
				Span current = this.tracer.currentSpan();
				traces.add(delivery.id() + " " + ((current != null) ? current.context().traceId() : "no span"));
			});
			RedeqClient client = context.getBean(RedeqClient.class);
			RedeqJournal journal = context.getBean(RedeqJournal.class);

			String sentTrace = inRequest(() -> JournalScenarios.transaction(context)
				.executeWithoutResult(
						(status) -> client.schedule(Job.builder("traced").id("sent").payload("x").build())));
			// The process "dies" after the commit: only its outbox row is written,
			// and the relay sends the job from another thread, outside any request.
			String relayedTrace = inRequest(() -> JournalScenarios.transaction(context)
				.executeWithoutResult((status) -> journal.outbox()
					.write(List.of(Job.builder("traced").id("relayed").payload("y").build()))));

			Awaitility.await().atMost(JournalScenarios.TIMEOUT).until(() -> traces.size() == 2);
			assertThat(traces).containsExactlyInAnyOrder("sent " + sentTrace, "relayed " + relayedTrace);
			assertThat(producerSpans()).hasSize(2)
				.allSatisfy((span) -> assertThat(List.of(sentTrace, relayedTrace)).contains(span.getTraceId()));
			assertThat(traceContext(context, "relayed")).startsWith("00-" + relayedTrace + "-");
		});
	}

	/** Runs the work in a request's observation; returns that request's trace id. */
	private String inRequest(Runnable work) {
		Observation request = Observation.start("http.server.requests", this.registry);
		try (Observation.Scope scope = request.openScope()) {
			work.run();
			return this.tracer.currentSpan().context().traceId();
		}
		finally {
			request.stop();
		}
	}

	private List<SpanData> producerSpans() {
		return this.spans.spans().stream().filter((span) -> span.getKind() == SpanKind.PRODUCER).toList();
	}

	private static String traceContext(AssertableApplicationContext context, String id) throws Exception {
		try (var connection = context.getBean(javax.sql.DataSource.class).getConnection();
				var select = connection
					.prepareStatement("SELECT trace_context FROM redeq_job WHERE topic = 'traced' AND id = ?")) {
			select.setString(1, id);
			try (var rows = select.executeQuery()) {
				assertThat(rows.next()).isTrue();
				return String.valueOf(rows.getString(1));
			}
		}
	}

}
