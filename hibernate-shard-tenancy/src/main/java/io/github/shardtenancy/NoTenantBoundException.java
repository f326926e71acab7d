package io.github.shardtenancy;

import org.jspecify.annotations.Nullable;

/**
 * Tenant work (a shard connection, a tenant-scoped task) was requested on a thread with no tenant bound through
 * {@link TenantContext}. Hibernate bootstrap and other work that touches no tenant data never raises it.
 */
public class NoTenantBoundException extends ShardTenancyException {

	/** @param what the work that needed a tenant, for the message */
	public NoTenantBoundException(String what) {
		this(what, null);
	}

	/**
	 * @param what the work that needed a tenant, for the message
	 * @param cause the database's refusal of it, or {@code null}
	 */
	public NoTenantBoundException(String what, @Nullable Throwable cause) {
		super("No tenant is bound on thread '" + Thread.currentThread().getName() + "' for " + what
				+ ": bind one with TenantContext.callAs(tenant, work) or TenantContext.bind(tenant)", null, null, -1,
				cause);
	}

}
