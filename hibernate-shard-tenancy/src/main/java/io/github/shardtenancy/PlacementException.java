package io.github.shardtenancy;

/**
 * No shard could be chosen for a tenant: no ACTIVE shard is registered, none matches the requested region, an explicit
 * or override shard is not ACTIVE, or fixed-slot mode is not initialised. Nothing was written.
 */
public class PlacementException extends ShardTenancyException {

	/**
	 * @param message what was asked and what was missing
	 * @param tenantId the tenant being placed, or {@code null}
	 * @param shardId the shard concerned, or {@code null}
	 * @param directoryVersion the directory version of the attempt, or {@code -1}
	 */
	public PlacementException(String message, String tenantId, String shardId, long directoryVersion) {
		super(message, tenantId, shardId, directoryVersion, null);
	}

}
