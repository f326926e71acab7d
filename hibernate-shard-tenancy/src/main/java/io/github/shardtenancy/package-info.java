/**
 * The API applications use: {@link io.github.shardtenancy.ShardTenancy} (the entry point and its builder),
 * {@link io.github.shardtenancy.TenantContext} (binding the tenant of the current thread), the router, topology and
 * directory types, and the one unchecked exception hierarchy under
 * {@link io.github.shardtenancy.ShardTenancyException}.
 */
@NullMarked
package io.github.shardtenancy;

import org.jspecify.annotations.NullMarked;
