package io.github.shardtenancy.boot;

import javax.sql.DataSource;

import io.github.shardtenancy.flyway.ShardTenancyFlyway;

/**
 * The Flyway runs of the {@link ShardTenancyMigrator}: the library's migrations, then on every shard the application's
 * from {@code shard-tenancy.flyway.shard-locations}, recorded in {@code shard-tenancy.flyway.shard-table}. Loaded only
 * when hibernate-shard-tenancy-flyway is on the class path. Immutable and thread-safe.
 */
final class FlywayShardTenancyMigrations implements ShardTenancyMigrator.Migrations {

	private final String[] locations;

	private final String table;

	FlywayShardTenancyMigrations(FlywayProperties properties) {
		this.locations = properties.getShardLocations().toArray(String[]::new);
		this.table = properties.getShardTable();
	}

	@Override
	public void migrateDirectory(DataSource directory) {
		ShardTenancyFlyway.migrateDirectory(directory);
	}

	@Override
	public void migrateShard(String shardId, DataSource shard) {
		ShardTenancyFlyway.migrateShard(shard, shardId, (this.locations.length == 0) ? null
				: (configuration) -> configuration.locations(this.locations).table(this.table));
	}

}
