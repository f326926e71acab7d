package io.github.shardtenancy.spi;

import io.github.shardtenancy.PlacementException;

/**
 * Chooses the owner shard of a new tenant. Called by the tenant admin's {@code create}
 * inside the directory transaction that writes the tenant's entry, after the transaction took the directory version
 * lock: the context's tenant counts include every tenant committed before, so concurrent creations on several
 * instances are placed one after the other, never on the same stale counts.
 *
 * <p>The library ships a least-loaded placement (the default),
 * a region-aware one and
 * a slot placement; an explicit shard in the request
 * ({@link io.github.shardtenancy.PlacementRequest#onShard}) and a tenant's override bypass the policy.
 *
 * <p>Implementations must be thread-safe, must not touch the directory themselves and should be quick: the directory
 * version lock is held while they run.
 */
@FunctionalInterface
public interface PlacementPolicy {

	/**
	 * @param context the tenant, the request, and every ACTIVE registered shard with its region and tenant count
	 * @return the id of one of {@link PlacementContext#candidates()}
	 * @throws PlacementException if no candidate fits; the tenant is then not created
	 */
	String choose(PlacementContext context);

}
