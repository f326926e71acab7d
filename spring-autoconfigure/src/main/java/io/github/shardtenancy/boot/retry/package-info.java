/**
 * Retry of transactions rejected by the shard fence: the programmatic
 * {@link io.github.shardtenancy.boot.retry.ShardTenancyRetry} (public API) and the advisor that applies it to
 * outermost {@code @Transactional} methods and Spring Data repository calls.
 */
@NullMarked
package io.github.shardtenancy.boot.retry;

import org.jspecify.annotations.NullMarked;
