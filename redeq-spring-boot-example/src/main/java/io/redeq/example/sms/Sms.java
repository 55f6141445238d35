package io.redeq.example.sms;

/**
 * The payload of an {@code sms.send} job.
 *
 * @param to the phone number
 * @param text the message
 */
public record Sms(String to, String text) {
}
