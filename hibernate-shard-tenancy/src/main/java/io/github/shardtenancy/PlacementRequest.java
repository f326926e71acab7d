package io.github.shardtenancy;

/**
 * What the caller asks of the placement of a new tenant.
 *
 * @param shardId an explicit owner, or {@code null} to let the policy choose; it must be an ACTIVE registered shard
 * @param region the region the tenant must live in, or {@code null} for any; used by the region-aware placement
 */
public record PlacementRequest(String shardId, String region) {

	/** @return no constraint: the policy chooses */
	public static PlacementRequest any() {
		return new PlacementRequest(null, null);
	}

	/**
	 * @param shardId the owner, never {@code null}
	 * @return explicit placement on that shard
	 */
	public static PlacementRequest onShard(String shardId) {
		return new PlacementRequest(java.util.Objects.requireNonNull(shardId, "shardId"), null);
	}

	/**
	 * @param region the region, never {@code null}
	 * @return placement in that region
	 */
	public static PlacementRequest inRegion(String region) {
		return new PlacementRequest(null, java.util.Objects.requireNonNull(region, "region"));
	}

}
