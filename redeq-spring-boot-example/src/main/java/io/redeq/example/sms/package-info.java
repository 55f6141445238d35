/**
 * The rate-limit example: text messages go through a partner that accepts only so many
 * per second ({@code redeq.topics.sms.send.rate-limit}); a burst waits READY and flows
 * out at that rate, over every instance together.
 */
@NullMarked
package io.redeq.example.sms;

import org.jspecify.annotations.NullMarked;
