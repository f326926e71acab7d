package io.github.shardtenancy.spi;

import java.sql.Connection;
import java.sql.SQLException;

import io.github.shardtenancy.DirectoryEntry;

/**
 * Loads a new tenant's initial data on its shard, once, when the tenant is created
 * ({@link io.github.shardtenancy.TenantAdmin#create(String)}), or when a failed seed is retried
 * ({@link io.github.shardtenancy.TenantAdmin#seed(String)}). Never called for a move: a move copies the rows the
 * tenant has.
 *
 * <p>Every seeder of a tenancy runs, in registration order, in one transaction on the tenant's owner shard: the
 * connection is taken from the tenant-routing {@code DataSource} with the tenant bound (fence checked, session
 * variables set, exactly as for the application's own writes), auto-commit off. The library commits it once every
 * seeder returned and records the seed in the directory history ({@code TENANT_SEEDED}); if a seeder throws, the
 * transaction is rolled back, so a failed seed leaves none of its rows. Implementations must not commit, roll back or
 * close the connection, and must be thread-safe (tenants may be created at once). A seeder runs inside the directory
 * transaction that records the seed, so it must not write the directory (create, move or delete a tenant, write
 * reference data): such a write is refused with {@link io.github.shardtenancy.NestedDirectoryWriteException} rather
 * than waiting for its own lock, and the seed is rolled back.
 */
@FunctionalInterface
public interface TenantSeeder {

	/**
	 * @param tenant the tenant's ACTIVE entry (its shard and directory version); never {@code null}
	 * @param connection the seed transaction's connection, bound to the tenant on its shard; never {@code null}
	 * @throws SQLException on a database error (the seed is rolled back and reported as
	 * {@link io.github.shardtenancy.TenantSeedException}); a {@link RuntimeException} is treated the same way
	 */
	void seed(DirectoryEntry tenant, Connection connection) throws SQLException;

}
