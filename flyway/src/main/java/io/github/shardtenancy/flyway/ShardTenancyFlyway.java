package io.github.shardtenancy.flyway;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

import javax.sql.DataSource;

import io.github.shardtenancy.liquibase.MigrationToolConflictException;
import io.github.shardtenancy.liquibase.ShardIdentityConflictException;
import io.github.shardtenancy.liquibase.ShardTenancySchemas;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.flywaydb.core.api.migration.JavaMigration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the library's Flyway migrations: the directory schema on the directory database, and on every shard the fence
 * followed by the application's own Flyway migrations. The schema is the one the Liquibase changelogs of
 * hibernate-shard-tenancy-liquibase define, read from them (no second copy to keep in step). The library's
 * migrations are recorded in their own history table, {@value #HISTORY_TABLE}; the application's in another
 * ({@value #APPLICATION_HISTORY_TABLE} unless configured), so that neither sees the other's versions.
 *
 * <p>A database whose library schema Liquibase installed is refused ({@link MigrationToolConflictException}): a
 * database stays with the tool that first migrated it. Stateless and thread-safe; concurrent migrations of one
 * database are serialised by Flyway's lock on its history table.
 */
public final class ShardTenancyFlyway {

	/** The history table of the library's migrations, in the directory and in every shard. */
	public static final String HISTORY_TABLE = ShardTenancySchemas.FLYWAY_HISTORY_TABLE;

	/** The default history table of the application's shard migrations: Flyway's own default. */
	public static final String APPLICATION_HISTORY_TABLE = "flyway_schema_history";

	private static final Logger log = LoggerFactory.getLogger(ShardTenancyFlyway.class);

	private ShardTenancyFlyway() {
	}

	/**
	 * Creates or upgrades the directory schema.
	 * @param directory a pool on the directory database
	 * @throws MigrationToolConflictException if Liquibase installed the library's schema in the database
	 * @throws IllegalStateException if the migration fails, with Flyway's error as the cause
	 */
	public static void migrateDirectory(DataSource directory) {
		migrateLibrary(directory, LibraryMigrations.DIRECTORY, "the directory");
	}

	/**
	 * Creates or upgrades one shard: the fence, then the application's migrations from the given locations (recorded
	 * in {@value #APPLICATION_HISTORY_TABLE}), then records the shard's logical id (named in every fence rejection).
	 * @param shard a pool on the shard database
	 * @param shardId the shard's logical id
	 * @param applicationLocations Flyway locations of the application's shard migrations (e.g.
	 * {@code classpath:db/migration/shard}); none: only the fence
	 * @throws ShardIdentityConflictException if the database already belongs to another shard id
	 * @throws MigrationToolConflictException if Liquibase installed the library's schema in the database
	 * @throws IllegalStateException if a migration fails, with the cause
	 */
	public static void migrateShard(DataSource shard, String shardId, List<String> applicationLocations) {
		List<String> locations = List.copyOf(applicationLocations);
		migrateShard(shard, shardId, locations.isEmpty() ? null
				: (configuration) -> configuration.locations(locations.toArray(String[]::new)));
	}

	/**
	 * Creates or upgrades one shard: the fence, then the application's migrations as the customizer configures them,
	 * then records the shard's logical id (named in every fence rejection).
	 * @param shard a pool on the shard database
	 * @param shardId the shard's logical id
	 * @param application configures the Flyway run of the application's migrations, handed a configuration with the
	 * shard's data source, the history table {@value #APPLICATION_HISTORY_TABLE} and a baseline at version 0 on first
	 * run (the shard is never empty: the fence is there), on the class loader of the calling thread; {@code null}: no
	 * application migrations
	 * @throws ShardIdentityConflictException if the database already belongs to another shard id
	 * @throws MigrationToolConflictException if Liquibase installed the library's schema in the database
	 * @throws IllegalStateException if a migration fails, with the cause
	 */
	public static void migrateShard(DataSource shard, String shardId,
			@org.jspecify.annotations.Nullable Consumer<FluentConfiguration> application) {
		Objects.requireNonNull(shardId, "shardId");
		String what = "shard '" + shardId + "'";
		migrateLibrary(shard, LibraryMigrations.SHARD, what);
		runAlways(shard, what);
		if (application != null) {
			FluentConfiguration configuration = Flyway.configure(classLoader())
				.dataSource(shard)
				.table(APPLICATION_HISTORY_TABLE)
				.baselineOnMigrate(true)
				.baselineVersion("0");
			application.accept(configuration);
			migrate(configuration, "the application's migrations", what);
		}
		ShardTenancySchemas.recordShardIdentity(shard, shardId);
	}

	private static void migrateLibrary(DataSource dataSource, List<ChangeSetMigration> migrations, String what) {
		refuseLiquibaseSchema(dataSource, what);
		FluentConfiguration configuration = Flyway.configure(classLoader())
			.dataSource(dataSource)
			.table(HISTORY_TABLE)
			// only these migrations: no location is scanned
			.locations(new String[0])
			.javaMigrations(migrations.toArray(JavaMigration[]::new))
			// a database holding other tables (the application's, or another tool's history) gets a baseline below
			// the first version, and every migration runs
			.baselineOnMigrate(true)
			.baselineVersion("0")
			.baselineDescription("before hibernate-shard-tenancy");
		migrate(configuration, "the library's migrations", what);
	}

	private static void migrate(FluentConfiguration configuration, String migrations, String what) {
		try {
			int applied = configuration.load().migrate().migrationsExecuted;
			log.debug("Migrated {} with {}: {} applied", what, migrations, applied);
		}
		catch (FlywayException ex) {
			throw new IllegalStateException("Flyway migration (" + migrations + ") failed on " + what + ": "
					+ ex.getMessage(), ex);
		}
	}

	private static void refuseLiquibaseSchema(DataSource dataSource, String what) {
		try (Connection c = dataSource.getConnection()) {
			if (ShardTenancySchemas.migratedByLiquibase(c) && !ShardTenancySchemas.migratedByFlyway(c)) {
				throw new MigrationToolConflictException(what, "The library's schema on " + what
						+ " was installed by Liquibase (its change sets are in DATABASECHANGELOG); Flyway does not "
						+ "migrate it: keep migrating this database with Liquibase (hibernate-shard-tenancy-liquibase)");
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Cannot inspect " + what + " before migrating it: " + ex.getMessage(), ex);
		}
	}

	/** The change set Liquibase runs at every update, outside Flyway's history. */
	private static void runAlways(DataSource shard, String what) {
		try (Connection c = shard.getConnection()) {
			c.setAutoCommit(true);
			List<String> statements = ChangeSets.statements(LibraryMigrations.SHARD_ALWAYS.changelog(),
					LibraryMigrations.SHARD_ALWAYS.id(), ChangeSetMigration.database(c));
			try (Statement statement = c.createStatement()) {
				for (String sql : statements) {
					statement.execute(sql);
				}
			}
			catch (SQLException ex) {
				// 42710 duplicate_object: an instance starting at the same time created it between the check and
				// the CREATE (this runs outside Flyway's lock); it is there, which is all this change set wants
				if (!"42710".equals(ex.getSQLState())) {
					throw ex;
				}
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Change set " + LibraryMigrations.SHARD_ALWAYS.id() + " failed on "
					+ what + ": " + ex.getMessage(), ex);
		}
	}

	private static ClassLoader classLoader() {
		ClassLoader loader = Thread.currentThread().getContextClassLoader();
		return (loader != null) ? loader : ShardTenancyFlyway.class.getClassLoader();
	}

}
