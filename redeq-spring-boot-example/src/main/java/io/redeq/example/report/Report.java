package io.redeq.example.report;

/**
 * The payload of each occurrence of the daily report, as application.yml writes it:
 * {@code '{"name":"sales"}'}.
 *
 * @param name which report to build
 */
record Report(String name) {
}
