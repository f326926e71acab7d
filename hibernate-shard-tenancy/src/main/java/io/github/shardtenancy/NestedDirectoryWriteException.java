package io.github.shardtenancy;

/**
 * A directory write was started on a thread that already has a directory write transaction open, for example a
 * {@link io.github.shardtenancy.spi.TenantSeeder} (run inside the directory transaction that records the seed) that
 * creates a tenant or writes reference data. Every directory write takes the same row lock (the global directory
 * version), so the inner write would wait for its own thread forever; it is refused instead, before it touches the
 * directory, and the outer transaction is rolled back by its caller as usual. Remedy: do that work before or after
 * the outer operation, not inside it.
 */
public class NestedDirectoryWriteException extends ShardTenancyException {

	/**
	 * @param tenantId the tenant the refused write is about, or {@code null}
	 */
	public NestedDirectoryWriteException(String tenantId) {
		super("A directory write" + (tenantId != null ? " for tenant " + quote(tenantId) : "")
				+ " was started inside another directory write transaction of the same thread (for example from a "
				+ "TenantSeeder, which runs inside the directory transaction that records the seed); it would wait "
				+ "for its own lock forever. Do this work before or after that operation, not inside it", tenantId,
				null, -1, null);
	}

}
