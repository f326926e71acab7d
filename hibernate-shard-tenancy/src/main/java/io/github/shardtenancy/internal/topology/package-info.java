/**
 * Implementation: the topology (shard id to pool) and its persisted form in the directory database (the shard
 * records).
 */
@NullMarked
package io.github.shardtenancy.internal.topology;

import org.jspecify.annotations.NullMarked;
