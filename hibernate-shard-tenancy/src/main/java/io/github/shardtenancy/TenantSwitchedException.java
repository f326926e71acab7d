package io.github.shardtenancy;

/**
 * The code tried to work as a second tenant while a shard connection of a first tenant is held on the same thread,
 * typically by binding another tenant inside a transaction, or by reusing a session (open session in view) opened for
 * another tenant. Raised before any statement of the second tenant runs; the enclosing transaction rolls back, so
 * nothing is written for either tenant.
 */
public class TenantSwitchedException extends ShardTenancyException {

	/**
	 * @param heldTenant the tenant whose connection or session is in use
	 * @param requestedTenant the tenant the code tried to switch to
	 * @param shardId the shard of the held connection, or {@code null}
	 */
	public TenantSwitchedException(String heldTenant, String requestedTenant, String shardId) {
		super("Tenant switched inside a transaction: a connection of tenant " + quote(heldTenant)
				+ (shardId != null ? " on shard '" + shardId + "'" : "") + " is in use, and the code asked for tenant "
				+ quote(requestedTenant) + ". Finish the first tenant's transaction before working as another.",
				requestedTenant, shardId, -1, null);
	}

}
