/** Reference data: tables with the same rows on every shard, their replicated writes, replay and verification. */
@NullMarked
package io.github.shardtenancy.internal.reference;

import org.jspecify.annotations.NullMarked;
