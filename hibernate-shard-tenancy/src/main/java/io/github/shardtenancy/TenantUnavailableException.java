package io.github.shardtenancy;

/**
 * The tenant exists but cannot take this work: it is {@link TenantState#DELETED}, or the directory is unreachable and
 * the entry is MIGRATING or FROZEN, which fail closed.
 */
public class TenantUnavailableException extends ShardTenancyException {

	private final TenantState state;

	/**
	 * @param tenantId the tenant
	 * @param shardId its owner shard
	 * @param directoryVersion the entry's directory version
	 * @param state the entry's state
	 * @param reason why the work was refused
	 */
	public TenantUnavailableException(String tenantId, String shardId, long directoryVersion, TenantState state,
			String reason) {
		super("Tenant " + quote(tenantId) + " on shard '" + shardId + "' is " + state + " (directory version "
				+ directoryVersion + "): " + reason, tenantId, shardId, directoryVersion, null);
		this.state = state;
	}

	/** @return the entry's state when the work was refused */
	public TenantState state() {
		return this.state;
	}

}
