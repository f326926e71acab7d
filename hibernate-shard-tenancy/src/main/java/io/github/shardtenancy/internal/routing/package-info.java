/**
 * Implementation: the router (Caffeine cache of directory entries, background sync, invalidation) and the
 * observers it tells.
 */
@NullMarked
package io.github.shardtenancy.internal.routing;

import org.jspecify.annotations.NullMarked;
