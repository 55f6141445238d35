package io.redeq.example.report;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.convert.DurationStyle;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import io.redeq.NotRetryableException;
import io.redeq.PolledJob;
import io.redeq.RedeqClient;

/**
 * Pull consumption, without a listener: {@code POST /reports {"name": "sales", "in":
 * "2s"}} requests a report, due after {@code in}; {@code POST /reports/next?wait=5s}
 * takes the next due request with {@link RedeqClient#poll}, builds it and acks it, or
 * answers 204 when none became due within the wait. A request for a report this
 * application does not know is failed as not retryable, so it is DEAD at once (422).
 */
@RestController
@RequestMapping("/reports")
class ReportController {

	static final String TOPIC = "report.build";

	/** A request thread waits for a due report at most this long. */
	private static final Duration MAX_WAIT = Duration.ofSeconds(10);

	private static final Set<String> KNOWN = Set.of("sales", "stock");

	private static final Logger logger = LoggerFactory.getLogger(ReportController.class);

	private final RedeqClient redeq;

	ReportController(RedeqClient redeq) {
		this.redeq = redeq;
	}

	@PostMapping
	ResponseEntity<Map<String, String>> request(@RequestBody Map<String, String> body) {
		Report report = new Report(body.getOrDefault("name", "sales"));
		Duration in = DurationStyle.detectAndParse(body.getOrDefault("in", "0s"));
		String id = this.redeq.schedule(TOPIC, report, in);
		return ResponseEntity.status(HttpStatus.CREATED).body(Map.of("id", id));
	}

	@PostMapping("/next")
	ResponseEntity<Map<String, Object>> buildNext(@RequestParam(defaultValue = "5s") String wait) {
		Duration maxWait = DurationStyle.detectAndParse(wait);
		Optional<PolledJob> polled = this.redeq.poll(TOPIC, (maxWait.compareTo(MAX_WAIT) > 0) ? MAX_WAIT : maxWait);
		if (polled.isEmpty()) {
			return ResponseEntity.noContent().build();
		}
		PolledJob job = polled.get();
		Report report = job.payload(Report.class);
		if (report == null || !KNOWN.contains(report.name())) {
			// Retrying cannot help: DEAD now, visible in RedeqAdmin.deadJobs
			// and the dashboard.
			job.fail(new NotRetryableException("no report named " + ((report != null) ? report.name() : null)));
			return ResponseEntity.unprocessableEntity().body(Map.of("id", job.id(), "status", "DEAD"));
		}
		// Build within the topic's timeout (the lease), then ack: a job not acked in time
		// is delivered again, and its late ack throws LeaseExpiredException.
		String content = "The " + report.name() + " report, requested at " + job.createdAt();
		job.ack();
		logger.info("Built the {} report (job {}, attempt {})", report.name(), job.id(), job.attempt());
		return ResponseEntity.ok(Map.of("id", job.id(), "name", report.name(), "content", content));
	}

}
