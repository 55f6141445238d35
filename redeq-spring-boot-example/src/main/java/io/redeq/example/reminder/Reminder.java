package io.redeq.example.reminder;

/**
 * The payload of a {@code reminder} job.
 *
 * @param to who to remind
 * @param text what to remind them of
 */
public record Reminder(String to, String text) {
}
