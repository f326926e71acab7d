package io.github.shardtenancy.spi;

/**
 * Fixed-slot placement (a hashed slot per tenant, with per-tenant overrides in the directory): the tenant goes to the
 * shard the slot table assigns its slot to (a hash of the tenant id modulo the slot count). A tenant's override,
 * when it has one, is applied before any policy is asked. Fails if slot mode is not initialised or the slot's shard is not an
 * ACTIVE registered shard. Stateless and thread-safe.
 */
public final class SlotPlacement implements PlacementPolicy {

	@Override
	public String choose(PlacementContext context) {
		if (context.slot() < 0 || context.slotShard() == null) {
			throw context.fail("fixed-slot mode is not initialised (TenantAdmin.initializeSlots)");
		}
		if (context.candidate(context.slotShard()).isEmpty()) {
			throw context.fail("slot " + context.slot() + " belongs to shard '" + context.slotShard()
					+ "', which is not an ACTIVE registered shard");
		}
		return context.slotShard();
	}

}
