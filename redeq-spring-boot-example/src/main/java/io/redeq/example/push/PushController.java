package io.redeq.example.push;

import java.time.Duration;
import java.util.Map;

import org.springframework.boot.convert.DurationStyle;
import org.springframework.context.annotation.Profile;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import io.redeq.RedeqClient;

/**
 * {@code POST /push/reminders?user=ada&text=Stand-up&in=10s} schedules a push reminder;
 * at its due time redeq publishes it to RabbitMQ (exchange {@code push}, routing key
 * {@code remind}) and the job completes once the broker confirmed it.
 */
@RestController
@RequestMapping("/push")
@Profile("rabbit")
class PushController {

	private static final Duration MAX_DELAY = Duration.ofDays(30);

	private final RedeqClient redeq;

	PushController(RedeqClient redeq) {
		this.redeq = redeq;
	}

	@PostMapping("/reminders")
	ResponseEntity<Map<String, String>> remind(@RequestParam String user, @RequestParam String text,
			@RequestParam(defaultValue = "10s") String in) {
		Duration delay = DurationStyle.detectAndParse(in);
		if (delay.isNegative() || delay.compareTo(MAX_DELAY) > 0) {
			return ResponseEntity.badRequest()
				.body(Map.of("error", "delay must be between 0s and " + MAX_DELAY + ", was " + delay));
		}
		String id = this.redeq.schedule("push.remind", new PushReminder(user, text), delay);
		return ResponseEntity.status(HttpStatus.CREATED).body(Map.of("id", id));
	}

}
