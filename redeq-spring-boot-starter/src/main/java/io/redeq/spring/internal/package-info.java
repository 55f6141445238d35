/**
 * Internals of the starter shared by its packages; not API, may change in any release.
 */
@NullMarked
package io.redeq.spring.internal;

import org.jspecify.annotations.NullMarked;
