/**
 * Small helpers shared by redeq's packages; not API, may change without notice.
 */
@NullMarked
package io.redeq.internal;

import org.jspecify.annotations.NullMarked;
