package io.redeq.redis;

/**
 * What the schedule script did with one job.
 *
 * @param status {@code new}, {@code replaced}, {@code kept}, {@code rejected},
 * {@code running} or {@code full}
 * @param value the due time for new, replaced and kept jobs; the pending count for full;
 * the existing state code for rejected
 * @param earliest whether the job became its bucket's earliest (the migrator should wake)
 */
public record ScheduleOutcome(String status, String value, boolean earliest) {

	public boolean written() {
		return "new".equals(this.status) || "replaced".equals(this.status);
	}

}
