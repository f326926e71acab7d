package io.github.shardtenancy.spi;

/**
 * The default placement: the ACTIVE shard owning fewest tenants (by count, DELETED tenants excluded), ties to the
 * smallest shard id; a region in the request restricts the candidates to that region. Creating 3n tenants on three
 * empty shards therefore leaves n on each. Stateless and thread-safe.
 */
public final class LeastLoadedPlacement implements PlacementPolicy {

	@Override
	public String choose(PlacementContext context) {
		String region = context.request().region();
		if (region == null) {
			return context.leastLoaded(context.candidates());
		}
		return RegionAwarePlacement.inRegion(context, region);
	}

}
