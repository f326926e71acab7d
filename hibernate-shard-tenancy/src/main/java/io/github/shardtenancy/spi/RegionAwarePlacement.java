package io.github.shardtenancy.spi;

import io.github.shardtenancy.ShardLoad;
import java.util.List;
import java.util.Objects;

/**
 * Places a tenant in a region (data residency): the least-loaded ACTIVE shard registered with the request's region,
 * or, when the request names none, with this policy's default region. A tenant is never placed outside its region:
 * with no ACTIVE shard there, placement fails. Immutable and thread-safe.
 */
public final class RegionAwarePlacement implements PlacementPolicy {

	private final String defaultRegion;

	/** @param defaultRegion the region for requests that name none, or {@code null} to require one in each request */
	public RegionAwarePlacement(String defaultRegion) {
		this.defaultRegion = defaultRegion;
	}

	@Override
	public String choose(PlacementContext context) {
		String region = context.request().region() != null ? context.request().region() : this.defaultRegion;
		if (region == null) {
			throw context.fail("the region-aware policy needs a region (none requested, no default region)");
		}
		return inRegion(context, region);
	}

	static String inRegion(PlacementContext context, String region) {
		List<ShardLoad> local = context.candidates().stream().filter(c -> Objects.equals(c.region(), region)).toList();
		if (local.isEmpty()) {
			throw context.fail("no ACTIVE shard is registered in region '" + region + "'");
		}
		return context.leastLoaded(local);
	}

}
