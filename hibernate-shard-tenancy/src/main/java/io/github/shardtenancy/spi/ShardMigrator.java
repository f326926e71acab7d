package io.github.shardtenancy.spi;

import javax.sql.DataSource;

/**
 * Brings a shard's schema up to date before the shard is registered: the fence changelog, the application's
 * changelogs and the fence's write check on every tenant table. With Liquibase that is
 * {@code ShardTenancyMigrations.migrateShard(dataSource, shardId, changelogs)} followed by
 * {@link FenceDialect#installWriteCheck} per tenant table (the Spring Boot module wires exactly that).
 *
 * <p>Must be idempotent: registering a shard again migrates it again.
 */
@FunctionalInterface
public interface ShardMigrator {

	/**
	 * @param shardId the shard's logical id; never {@code null}
	 * @param dataSource the shard's pool; never {@code null}
	 * @param dialect the shard's fence dialect; never {@code null}
	 * @throws RuntimeException if the migration fails; the shard is then not registered and its pool is dropped
	 */
	void migrate(String shardId, DataSource dataSource, FenceDialect dialect);

}
