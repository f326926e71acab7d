package io.github.shardtenancy;

/**
 * The check that a Hibernate session serves only the tenant it was opened for: a session opened for one tenant (or
 * with none bound) must not be used for work bound to another tenant, whether the work reaches the database or is
 * served from the session's persistence context. The connection provider makes it when it hands out a connection; the
 * library's Hibernate event listener makes it on every entity load (including one served from the persistence
 * context, and the initialisation of a lazy proxy); the Spring Boot module's {@code JpaDialect} makes it when a
 * transaction begins.
 *
 * <p>Cheap: one thread-local read and one string comparison. Thread-safe.
 */
public final class SessionTenantCheck {

	private SessionTenantCheck() {
	}

	/**
	 * @param sessionTenant the session's tenant identifier (Hibernate's {@code getTenantIdentifierValue()}), which is
	 * {@link TenantIds#NO_TENANT} for a session opened with no tenant bound, or {@code null} for a
	 * session that is not multi-tenant
	 * @throws TenantSwitchedException if a tenant is bound on this thread and the session was opened for another
	 * tenant or with none bound; nothing is checked when no tenant is bound now
	 */
	public static void requireSessionOf(Object sessionTenant) {
		String bound = TenantContext.current();
		if (bound == null || sessionTenant == null || bound.equals(sessionTenant)) {
			return;
		}
		throw TenantSwitchedException.sessionOpenedFor(
				TenantIds.NO_TENANT.equals(sessionTenant) ? null : String.valueOf(sessionTenant), bound);
	}

}
