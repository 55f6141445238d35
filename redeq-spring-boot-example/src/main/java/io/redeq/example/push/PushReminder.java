package io.redeq.example.push;

/**
 * The payload of a {@code push.remind} job, and the JSON body of the message it becomes.
 *
 * @param user who gets the push notification
 * @param text what it says
 */
public record PushReminder(String user, String text) {
}
