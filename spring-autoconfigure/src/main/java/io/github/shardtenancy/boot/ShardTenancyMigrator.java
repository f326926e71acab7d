package io.github.shardtenancy.boot;

import java.util.List;
import java.util.Objects;
import java.util.function.Function;

import javax.sql.DataSource;

import io.github.shardtenancy.ShardTenancyConfigurationException;
import io.github.shardtenancy.ShardTopology;
import io.github.shardtenancy.liquibase.MigrationToolConflictException;
import io.github.shardtenancy.liquibase.ShardIdentityConflictException;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.InitializingBean;

/**
 * Runs the migrations at start-up, when the bean is initialised: the directory schema on the directory database, then
 * on every shard (in shard id order) the fence followed by the application's shard migrations, with Liquibase (the
 * library's changelogs and {@code shard-tenancy.liquibase.shard-changelogs}) or Flyway (the library's Flyway
 * migrations and {@code shard-tenancy.flyway.shard-locations}). The auto-configured router depends on this bean, so
 * no tenant is routed before every database is migrated; a shard registered at runtime is migrated by
 * {@link #migrateShard} before it is recorded.
 *
 * <p>Not meant to be called concurrently; {@link #migrate()} is idempotent (both tools skip what they applied).
 */
public class ShardTenancyMigrator implements InitializingBean {

	/** How one migration tool migrates the directory and a shard. Implementations must be idempotent. */
	public interface Migrations {

		/**
		 * @param directory a pool on the directory database; never {@code null}
		 * @throws RuntimeException if the migration fails
		 */
		void migrateDirectory(DataSource directory);

		/**
		 * Migrates the fence, then the application's shard migrations, then records the shard's id.
		 * @param shardId the shard's logical id; never {@code null}
		 * @param shard a pool on the shard's database; never {@code null}
		 * @throws ShardIdentityConflictException if the database belongs to another shard id
		 * @throws RuntimeException if the migration fails
		 */
		void migrateShard(String shardId, DataSource shard);

	}

	private final DataSource directory;

	private final ShardTopology topology;

	private final Migrations migrations;

	private final String tool;

	private Function<String, @Nullable DataSource> owners = (shardId) -> null;

	/**
	 * With Liquibase.
	 * @param directory the directory database; never {@code null}
	 * @param topology the shards to migrate; never {@code null}
	 * @param shardChangelogs the application's changelogs run on every shard after the fence changelog (class-path
	 * locations); never {@code null}, may be empty
	 */
	public ShardTenancyMigrator(DataSource directory, ShardTopology topology, List<String> shardChangelogs) {
		this(directory, topology, liquibase(List.copyOf(shardChangelogs)), "liquibase");
	}

	/**
	 * @param directory the directory database; never {@code null}
	 * @param topology the shards to migrate; never {@code null}
	 * @param migrations the migration tool's runs; never {@code null}
	 * @param tool the tool's name as {@code shard-tenancy.migrations.tool} spells it, e.g. {@code flyway}
	 */
	public ShardTenancyMigrator(DataSource directory, ShardTopology topology, Migrations migrations, String tool) {
		this.directory = Objects.requireNonNull(directory, "directory");
		this.topology = Objects.requireNonNull(topology, "topology");
		this.migrations = Objects.requireNonNull(migrations, "migrations");
		this.tool = Objects.requireNonNull(tool, "tool");
	}

	private static Migrations liquibase(List<String> shardChangelogs) {
		return new Migrations() {

			@Override
			public void migrateDirectory(DataSource directory) {
				ShardTenancyMigrations.migrateDirectory(directory);
			}

			@Override
			public void migrateShard(String shardId, DataSource shard) {
				ShardTenancyMigrations.migrateShard(shard, shardId, shardChangelogs);
			}

		};
	}

	/**
	 * Migrates the shards as their owner where there is one.
	 * @param owners per shard id, a {@link DataSource} connecting as the shard schema's owner, or {@code null} for the
	 * shard's own pool; never {@code null}
	 * @return this migrator
	 */
	public ShardTenancyMigrator shardOwners(Function<String, @Nullable DataSource> owners) {
		this.owners = Objects.requireNonNull(owners, "owners");
		return this;
	}

	/**
	 * Calls {@link #migrate()}.
	 * @throws ShardTenancyConfigurationException as {@link #migrate()}
	 * @throws IllegalStateException if a migration fails (the cause names the migration and the database)
	 */
	@Override
	public void afterPropertiesSet() {
		migrate();
	}

	/**
	 * Migrates the directory, then every shard.
	 * @throws ShardTenancyConfigurationException if two shard ids are configured with the same database (the
	 * database of a shard already belongs to another shard id), naming the shard's URL property; or if the other
	 * migration tool installed the library's schema in a database, naming {@code shard-tenancy.migrations.tool}
	 * @throws IllegalStateException if a migration fails, with the tool's error as the cause
	 */
	public void migrate() {
		try {
			this.migrations.migrateDirectory(this.directory);
		}
		catch (MigrationToolConflictException ex) {
			throw toolConflict(ex, null);
		}
		for (String shardId : this.topology.shardIds().stream().sorted().toList()) {
			try {
				DataSource owner = this.owners.apply(shardId);
				this.migrations.migrateShard(shardId, owner != null ? owner : this.topology.dataSource(shardId));
			}
			catch (ShardIdentityConflictException ex) {
				throw new ShardTenancyConfigurationException("shard-tenancy.shards." + shardId + ".url",
						ex.getMessage());
			}
			catch (MigrationToolConflictException ex) {
				throw toolConflict(ex, shardId);
			}
		}
	}

	private ShardTenancyConfigurationException toolConflict(MigrationToolConflictException ex, String shardId) {
		String message = ex.getMessage() + " (shard-tenancy.migrations.tool resolved to '" + this.tool
				+ "'; set it to the tool that installed the schema)";
		return (shardId != null) ? new ShardTenancyConfigurationException("shard-tenancy.migrations.tool", message, shardId)
				: new ShardTenancyConfigurationException("shard-tenancy.migrations.tool", message);
	}

	/**
	 * Migrates one shard (the fence, then the application's shard migrations): what the shard registry runs before it
	 * records a shard added at runtime.
	 * @param shardId the shard's id
	 * @param dataSource a pool on the shard's database
	 * @throws ShardIdentityConflictException if the database belongs to another shard id
	 * @throws IllegalStateException if a migration fails, with the tool's error as the cause
	 */
	public void migrateShard(String shardId, DataSource dataSource) {
		this.migrations.migrateShard(shardId, dataSource);
	}

	/** @return the migration tool, as {@code shard-tenancy.migrations.tool} spells it: {@code liquibase} or {@code flyway} */
	public String tool() {
		return this.tool;
	}

}
