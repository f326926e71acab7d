package io.github.shardtenancy.lifecycle;

import io.github.shardtenancy.internal.lifecycle.TenantLifecycle;

/**
 * How {@link TenantLifecycle} moves one tenant (slot moves, overrides, drains): the basic
 * {@link io.github.shardtenancy.admin.TenantMover} ({@code mover::move}) or the online mover
 * ({@code (tenant, target) -> onlineMover.move(tenant, target, options)}).
 */
@FunctionalInterface
public interface TenantMoves {

	/**
	 * Moves a tenant and returns once its directory entry names the target as owner.
	 * @param tenantId the tenant, ACTIVE on another shard
	 * @param targetShardId the new owner
	 * @throws RuntimeException ({@link io.github.shardtenancy.ShardTenancyException}) if the move fails or is refused
	 */
	void move(String tenantId, String targetShardId);

}
