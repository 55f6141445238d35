package io.redeq.example;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * redeq's example: an order service whose unpaid orders are cancelled after a timeout,
 * and reminders sent by a flaky mail server that redeq retries.
 */
@SpringBootApplication
public class ExampleApplication {

	public static void main(String[] args) {
		SpringApplication.run(ExampleApplication.class, args);
	}

}
