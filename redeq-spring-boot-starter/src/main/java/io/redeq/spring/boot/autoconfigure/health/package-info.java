/**
 * Auto-configuration of redeq's health contributor.
 */
@NullMarked
package io.redeq.spring.boot.autoconfigure.health;

import org.jspecify.annotations.NullMarked;
