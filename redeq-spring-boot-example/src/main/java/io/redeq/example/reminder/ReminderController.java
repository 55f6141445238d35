package io.redeq.example.reminder;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.convert.DurationStyle;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

import io.redeq.DeadJob;
import io.redeq.RedeqAdmin;
import io.redeq.RedeqClient;

/**
 * {@code POST /reminders {"to": "ada", "text": "...", "in": "10s"}} schedules a reminder
 * (with {@code "urgent": true} on the topic {@code reminder.urgent}, which has its own
 * settings); {@code GET /reminders/dead} lists the ones of both topics that failed every
 * attempt, and {@code POST /reminders/dead/{id}/requeue} gives one a fresh set of
 * attempts.
 */
@RestController
@RequestMapping("/reminders")
class ReminderController {

	private static final Logger logger = LoggerFactory.getLogger(ReminderController.class);

	private final RedeqClient redeq;

	private final RedeqAdmin admin;

	ReminderController(RedeqClient redeq, RedeqAdmin admin) {
		this.redeq = redeq;
		this.admin = admin;
	}

	/**
	 * Schedules with the asynchronous client: the request thread is not held while Redis
	 * answers (Spring MVC completes the response when the future does). Bad input (a
	 * negative delay) throws here, at the call; Redis failures complete the future
	 * exceptionally and become an error response.
	 */
	@PostMapping
	CompletableFuture<ResponseEntity<Map<String, String>>> schedule(@RequestBody Map<String, String> body) {
		Reminder reminder = new Reminder(body.getOrDefault("to", "you"), body.getOrDefault("text", "hello"));
		Duration in = DurationStyle.detectAndParse(body.getOrDefault("in", "5s"));
		String topic = Boolean.parseBoolean(body.get("urgent")) ? ReminderListener.URGENT : ReminderListener.REGULAR;
		logger.info("Scheduling a reminder for {} in {}s on {}", reminder.to(), in.toSeconds(), topic);
		return this.redeq.async().schedule(topic, reminder, in).thenApply((id) -> {
			// On Lettuce's I/O thread: quick, non-blocking work only.
			logger.info("Reminder for {} scheduled (job {})", reminder.to(), id);
			return ResponseEntity.status(HttpStatus.CREATED).body(Map.of("id", id));
		});
	}

	@GetMapping("/dead")
	List<DeadJob> dead() {
		List<DeadJob> dead = new ArrayList<>(this.admin.deadJobs(ReminderListener.REGULAR, 0, 50));
		dead.addAll(this.admin.deadJobs(ReminderListener.URGENT, 0, 50));
		return dead;
	}

	@PostMapping("/dead/{id}/requeue")
	ResponseEntity<Void> requeue(@PathVariable String id) {
		return (this.admin.requeueDead(ReminderListener.REGULAR, id)
				|| this.admin.requeueDead(ReminderListener.URGENT, id)) ? ResponseEntity.noContent().build()
						: ResponseEntity.notFound().build();
	}

}
