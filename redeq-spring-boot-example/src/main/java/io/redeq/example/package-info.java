/**
 * redeq's example application.
 */
@NullMarked
package io.redeq.example;

import org.jspecify.annotations.NullMarked;
