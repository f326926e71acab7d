package io.github.shardtenancy;

/**
 * A tenant's seed ({@link io.github.shardtenancy.spi.TenantSeeder}) failed. The tenant exists (its entry is ACTIVE).
 * When {@link #rolledBack()} is true, none of the seed's rows were kept: fix the cause and call
 * {@link TenantAdmin#seed(String)}, which seeds it then (or delete the tenant). When it is false, the seed was
 * committed on the shard but could not be recorded in the directory; do not seed again (the rows are there).
 */
public class TenantSeedException extends ShardTenancyException {

	private final boolean rolledBack;

	/**
	 * @param message what failed, naming the tenant, the shard and the directory version
	 * @param tenantId the tenant
	 * @param shardId its owner shard
	 * @param directoryVersion its entry's directory version
	 * @param rolledBack whether the seed's transaction was rolled back
	 * @param cause the seeder's or the database's failure
	 */
	public TenantSeedException(String message, String tenantId, String shardId, long directoryVersion,
			boolean rolledBack, Throwable cause) {
		super(message, tenantId, shardId, directoryVersion, cause);
		this.rolledBack = rolledBack;
	}

	/** @return whether the seed's transaction was rolled back (none of its rows kept) */
	public boolean rolledBack() {
		return this.rolledBack;
	}

}
