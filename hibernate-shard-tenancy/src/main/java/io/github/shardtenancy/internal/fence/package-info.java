/**
 * Implementation: the shard fence's in-process side (fence state of a shard, freeze and flip of one tenant).
 */
@NullMarked
package io.github.shardtenancy.internal.fence;

import org.jspecify.annotations.NullMarked;
