package io.github.shardtenancy.spi;

import io.github.shardtenancy.internal.topology.ShardTopology;

/**
 * Brings a shard's schema up to date before the shard is registered: the fence changelog, the application's
 * changelogs and the fence's write check on every tenant table. With Liquibase that is
 * {@code ShardTenancyMigrations.migrateShard(shard.dataSource(), shard.id(), changelogs)} followed by
 * {@link FenceDialect#installWriteCheck} per tenant table (the Spring Boot module wires exactly that).
 *
 * <p>Must be idempotent: registering a shard again migrates it again.
 */
@FunctionalInterface
public interface ShardMigrator {

	/**
	 * @param shard the shard, already in the topology with its pool and fence dialect
	 * @throws RuntimeException if the migration fails; the shard is then not registered and its pool is dropped
	 */
	void migrate(ShardTopology.Shard shard);

}
