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

	private TenantSwitchedException(String message, String requestedTenant) {
		super(message, requestedTenant, null, -1, null);
	}

	/**
	 * The Hibernate session in use was opened for one tenant (or none) and the thread now works as another: typically
	 * open session in view, which opens one session when a request starts and keeps it for the whole request.
	 * @param sessionTenant the tenant the session was opened for, or {@code null} if it was opened with none bound
	 * @param requestedTenant the tenant bound now
	 * @return the exception, naming both tenants and what to do
	 */
	public static TenantSwitchedException sessionOpenedFor(String sessionTenant, String requestedTenant) {
		return new TenantSwitchedException("Tenant switched within one Hibernate session: the session was opened "
				+ (sessionTenant != null ? "for tenant " + quote(sessionTenant) : "with no tenant bound")
				+ " and the code now works as tenant " + quote(requestedTenant)
				+ ". A session keeps the tenant it was opened for (with open session in view, for the whole request): "
				+ "bind the tenant before the session opens (a filter), or set spring.jpa.open-in-view=false so "
				+ "that each transaction opens its own session.", requestedTenant);
	}

}
