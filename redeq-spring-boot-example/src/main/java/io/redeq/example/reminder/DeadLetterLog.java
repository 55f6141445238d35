package io.redeq.example.reminder;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.stereotype.Component;

import io.redeq.Delivery;
import io.redeq.JobLifecycleListener;

/**
 * Says so in the log when a job gives up: a {@link JobLifecycleListener} bean is
 * registered with redeq by the starter.
 */
@Component
class DeadLetterLog implements JobLifecycleListener {

	private static final Logger logger = LoggerFactory.getLogger(DeadLetterLog.class);

	@Override
	public void onDead(Delivery delivery, String reason) {
		logger.warn("Gave up on {} job {} after {} attempt(s): {}. See GET /reminders/dead to inspect or requeue it",
				delivery.topic(), delivery.id(), delivery.attempt(), reason);
	}

}
