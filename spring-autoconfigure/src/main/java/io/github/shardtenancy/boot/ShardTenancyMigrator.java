package io.github.shardtenancy.boot;

import java.util.List;
import java.util.Objects;

import javax.sql.DataSource;

import io.github.shardtenancy.ShardTenancyConfigurationException;
import io.github.shardtenancy.ShardTopology;
import io.github.shardtenancy.liquibase.ShardIdentityConflictException;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import org.springframework.beans.factory.InitializingBean;

/**
 * Runs the Liquibase migrations at start-up, when the bean is initialised: the directory changelog on the directory
 * database, then on every shard (in shard id order) the fence changelog followed by the application's shard
 * changelogs. The auto-configured router depends on this bean, so no tenant is routed before every database is
 * migrated.
 *
 * <p>Not meant to be called concurrently; {@link #migrate()} is idempotent (Liquibase skips applied change sets).
 */
public class ShardTenancyMigrator implements InitializingBean {

	private final DataSource directory;

	private final ShardTopology topology;

	private final List<String> shardChangelogs;

	/**
	 * @param directory the directory database; never {@code null}
	 * @param topology the shards to migrate; never {@code null}
	 * @param shardChangelogs the application's changelogs run on every shard after the fence changelog (class-path
	 * locations); never {@code null}, may be empty
	 */
	public ShardTenancyMigrator(DataSource directory, ShardTopology topology, List<String> shardChangelogs) {
		this.directory = Objects.requireNonNull(directory, "directory");
		this.topology = Objects.requireNonNull(topology, "topology");
		this.shardChangelogs = List.copyOf(shardChangelogs);
	}

	/**
	 * Calls {@link #migrate()}.
	 * @throws IllegalStateException if a migration fails (the cause names the changelog and the database)
	 */
	@Override
	public void afterPropertiesSet() {
		migrate();
	}

	/**
	 * Migrates the directory, then every shard.
	 * @throws ShardTenancyConfigurationException if two shard ids are configured with the same database (the
	 * database of a shard already belongs to another shard id), naming the shard's URL property
	 * @throws IllegalStateException if a migration fails, with Liquibase's error as the cause
	 */
	public void migrate() {
		ShardTenancyMigrations.migrateDirectory(this.directory);
		for (String shardId : this.topology.shardIds().stream().sorted().toList()) {
			try {
				ShardTenancyMigrations.migrateShard(this.topology.dataSource(shardId), shardId,
						this.shardChangelogs);
			}
			catch (ShardIdentityConflictException ex) {
				throw new ShardTenancyConfigurationException("shard-tenancy.shards." + shardId + ".url",
						ex.getMessage());
			}
		}
	}

	/**
	 * Migrates one shard (the fence changelog, then the application's shard changelogs): what the shard registry runs
	 * before it records a shard added at runtime.
	 * @param shardId the shard's id
	 * @param dataSource a pool on the shard's database
	 * @throws IllegalStateException if a migration fails, with Liquibase's error as the cause
	 */
	public void migrateShard(String shardId, DataSource dataSource) {
		ShardTenancyMigrations.migrateShard(dataSource, shardId, this.shardChangelogs);
	}

	/** @return the application's shard changelogs, in the order they run */
	public List<String> shardChangelogs() {
		return this.shardChangelogs;
	}

}
