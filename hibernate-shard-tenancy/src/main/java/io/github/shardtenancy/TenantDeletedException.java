package io.github.shardtenancy;

/**
 * The tenant was deleted (its directory entry is {@link TenantState#DELETED}): routers refuse it before any shard
 * connection is borrowed. Its rows stay on its shard until purged.
 */
public class TenantDeletedException extends TenantUnavailableException {

	/**
	 * @param tenantId the tenant
	 * @param shardId the shard it lived on
	 * @param directoryVersion the version of the deletion
	 */
	public TenantDeletedException(String tenantId, String shardId, long directoryVersion) {
		super(tenantId, shardId, directoryVersion, TenantState.DELETED, "the tenant was deleted");
	}

}
