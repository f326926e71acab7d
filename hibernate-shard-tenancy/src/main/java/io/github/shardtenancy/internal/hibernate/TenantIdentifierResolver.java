package io.github.shardtenancy.internal.hibernate;

import io.github.shardtenancy.TenantContext;
import org.hibernate.context.spi.CurrentTenantIdentifierResolver;

/**
 * Hibernate's {@link CurrentTenantIdentifierResolver}: the tenant of a new session is the one bound on the current
 * thread by {@link TenantContext}.
 *
 * <p>With no tenant bound it answers {@link #NO_TENANT}, a value that can never be a valid tenant id. Opening a
 * session (bootstrap, open-session-in-view on a request without a tenant) therefore works; the first attempt to take
 * a shard connection for such a session gets, when reference tables are declared, a read-only connection that runs
 * only reads of reference tables, and otherwise raises {@link io.github.shardtenancy.NoTenantBoundException} in
 * {@link ShardMultiTenantConnectionProvider}, before any connection is borrowed. Stateless and thread-safe.
 */
public class TenantIdentifierResolver implements CurrentTenantIdentifierResolver<String> {

	/** The tenant identifier of a session opened with no tenant bound. Not a valid tenant id, never routed. */
	public static final String NO_TENANT = io.github.shardtenancy.TenantIds.NO_TENANT;

	@Override
	public String resolveCurrentTenantIdentifier() {
		String tenant = TenantContext.current();
		return tenant != null ? tenant : NO_TENANT;
	}

	@Override
	public boolean validateExistingCurrentSessions() {
		return true;
	}

}
