/**
 * Auto-configuration of the redeq web dashboard.
 */
@NullMarked
package io.redeq.spring.boot.autoconfigure.dashboard;

import org.jspecify.annotations.NullMarked;
