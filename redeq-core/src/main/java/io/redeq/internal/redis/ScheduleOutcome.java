package io.redeq.internal.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What the schedule script did with one job, or where a reschedule or a retry moved a
 * job's due time.
 *
 * @param status {@code new}, {@code replaced}, {@code kept}, {@code rejected},
 * {@code running} or {@code full}; {@code rescheduled} or {@code retry} for a moved job
 * @param value the due time for new, replaced and moved jobs; the pending count for full;
 * the existing state code for rejected
 * @param earliest whether the job is due before any due time its bucket's migrators were
 * told of (the migrator should wake)
 * @param redisTime the Redis time (ms) the schedule call ran at, the created time of a
 * job it stored; 0 for a moved job
 */
public record ScheduleOutcome(String status, String value, boolean earliest, long redisTime) {

	/**
	 * An outcome without the call's Redis time.
	 * @param status the status
	 * @param value the value
	 * @param earliest whether the migrators should wake
	 */
	public ScheduleOutcome(String status, String value, boolean earliest) {
		this(status, value, earliest, 0);
	}

	/**
	 * Parses schedule.lua's reply into one outcome per job in request order: the due ms
	 * of the call's earliest job when it is due before any due time the bucket's
	 * migrators were told of (-1 none: the migrator need not wake), the Redis time the
	 * call ran at, then a triple (position from 1, status, value) per job that was not
	 * simply new. A job without one is new, due at its instant or at the call's time plus
	 * its delay. Only the first written job with the earliest due time is marked
	 * earliest.
	 */
	static List<ScheduleOutcome> fromScheduleReply(List<Object> reply, List<ScheduleRequest> requests) {
		String earliest = String.valueOf(ScriptReply.number(reply.get(0)));
		long now = ScriptReply.number(reply.get(1));
		String[] statuses = new String[requests.size()];
		String[] values = new String[requests.size()];
		for (int i = 2; i + 2 < reply.size(); i += 3) {
			int at = (int) ScriptReply.number(reply.get(i)) - 1;
			statuses[at] = ScriptReply.text(reply.get(i + 1));
			values[at] = ScriptReply.text(reply.get(i + 2));
		}
		boolean marked = false;
		List<ScheduleOutcome> outcomes = new ArrayList<>(requests.size());
		for (int at = 0; at < requests.size(); at++) {
			ScheduleRequest request = requests.get(at);
			String status = (statuses[at] != null) ? statuses[at] : "new";
			String value = (values[at] != null) ? values[at]
					: Long.toString(request.absolute() ? request.millis() : now + request.millis());
			boolean isEarliest = !marked && !"-1".equals(earliest) && earliest.equals(value)
					&& ("new".equals(status) || "replaced".equals(status));
			marked |= isEarliest;
			outcomes.add(new ScheduleOutcome(status, value, isEarliest, now));
		}
		return outcomes;
	}

	/**
	 * Parses the reply of reschedule.lua or retry.lua, which move a job's due time: 1,
	 * new due ms, 1 if it became the earliest job; or 0, 0, 0 if the job could not be
	 * moved (empty).
	 */
	static Optional<ScheduleOutcome> fromMoveReply(String status, List<Object> reply) {
		if (!ScriptReply.isOne(reply.get(0))) {
			return Optional.empty();
		}
		return Optional
			.of(new ScheduleOutcome(status, ScriptReply.text(reply.get(1)), ScriptReply.isOne(reply.get(2))));
	}

}
