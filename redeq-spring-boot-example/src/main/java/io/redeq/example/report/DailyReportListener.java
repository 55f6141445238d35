package io.redeq.example.report;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.stereotype.Component;

import io.redeq.Delivery;
import io.redeq.spring.RedeqListener;

/**
 * Builds the report of each tick of {@code redeq.recurring.daily-sales} (weekdays at
 * 09:00 Berlin time). However many instances run, each tick is one occurrence run by one
 * of them; {@link Delivery#dueAt()} is the tick, so a run after downtime knows which day
 * it stands for.
 */
@Component
class DailyReportListener {

	private static final Logger logger = LoggerFactory.getLogger(DailyReportListener.class);

	@RedeqListener(topic = "report.daily")
	void build(Report report, Delivery delivery) {
		logger.info("Building the {} report of {} (attempt {})", report.name(), delivery.dueAt(), delivery.attempt());
	}

}
