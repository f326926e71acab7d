/**
 * The {@code @ShardSafeId} test domain: an entity and its helper, in a package of their own so that an entity scan of
 * it finds nothing else.
 */
@NullMarked
package io.github.shardtenancy.testing.ids;

import org.jspecify.annotations.NullMarked;
