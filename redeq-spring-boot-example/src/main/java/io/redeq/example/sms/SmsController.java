package io.redeq.example.sms;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import io.redeq.Job;
import io.redeq.RedeqClient;

/**
 * {@code POST /sms/burst?count=20} schedules a burst of messages at once; the log shows
 * them leave at the topic's rate limit.
 */
@RestController
@RequestMapping("/sms")
class SmsController {

	private static final int MAX_BURST = 1000;

	private final RedeqClient redeq;

	SmsController(RedeqClient redeq) {
		this.redeq = redeq;
	}

	@PostMapping("/burst")
	ResponseEntity<Map<String, Integer>> burst(@RequestParam(defaultValue = "20") int count) {
		int size = Math.max(1, Math.min(count, MAX_BURST));
		List<Job> jobs = new ArrayList<>(size);
		for (int i = 0; i < size; i++) {
			jobs.add(Job.builder("sms.send").payload(new Sms("+4915100000" + i, "Your code is " + (1000 + i))).build());
		}
		this.redeq.scheduleAll(jobs);
		return ResponseEntity.status(HttpStatus.CREATED).body(Map.of("scheduled", size));
	}

}
