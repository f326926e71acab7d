package io.github.shardtenancy.liquibase;

import java.sql.Connection;
import java.util.List;

import javax.sql.DataSource;

import liquibase.Contexts;
import liquibase.LabelExpression;
import liquibase.Liquibase;
import liquibase.Scope;
import liquibase.analytics.configuration.AnalyticsArgs;
import liquibase.database.Database;
import liquibase.database.DatabaseFactory;
import liquibase.database.jvm.JdbcConnection;
import liquibase.resource.ClassLoaderResourceAccessor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the library's Liquibase changelogs: the directory schema on the directory database, and on every shard the
 * fence followed by the application's own changelogs. Each database is migrated on its own: Hibernate's schema tools
 * only ever see one shard, so they cannot do it (see the stack notes). Stateless and thread-safe; concurrent
 * migrations of one database are serialised by Liquibase's lock table.
 */
public final class ShardTenancyMigrations {

	/** Class-path location of the directory changelog. */
	public static final String DIRECTORY_CHANGELOG = "db/shard-tenancy/directory.xml";

	/** Class-path location of the shard fence changelog. */
	public static final String SHARD_CHANGELOG = "db/shard-tenancy/shard.xml";

	private static final Logger log = LoggerFactory.getLogger(ShardTenancyMigrations.class);

	private ShardTenancyMigrations() {
	}

	/**
	 * Creates or upgrades the directory schema.
	 * @param directory a pool on the directory database
	 * @throws MigrationToolConflictException if Flyway installed the library's schema in the database
	 * @throws IllegalStateException if the migration fails, with Liquibase's error as cause
	 */
	public static void migrateDirectory(DataSource directory) {
		update(directory, DIRECTORY_CHANGELOG, "directory");
	}

	/**
	 * Creates or upgrades one shard: the fence, then the application's changelogs in order, then records the shard's
	 * logical id (named in every fence rejection).
	 * @param shard a pool on the shard database
	 * @param shardId the shard's logical id
	 * @param applicationChangelogs class-path locations (a {@code classpath:} prefix is allowed), possibly empty
	 * @throws ShardIdentityConflictException if the database already belongs to another shard id (two shard ids
	 * configured with the same database)
	 * @throws MigrationToolConflictException if Flyway installed the library's schema in the database
	 * @throws IllegalStateException if a migration fails, with the cause
	 */
	public static void migrateShard(DataSource shard, String shardId, List<String> applicationChangelogs) {
		update(shard, SHARD_CHANGELOG, "shard '" + shardId + "'");
		for (String changelog : applicationChangelogs) {
			update(shard, changelog, "shard '" + shardId + "'");
		}
		ShardTenancySchemas.recordShardIdentity(shard, shardId);
	}

	private static void update(DataSource dataSource, String changelog, String what) {
		String path = changelog.startsWith("classpath:") ? changelog.substring("classpath:".length()) : changelog;
		while (path.startsWith("/")) {
			path = path.substring(1);
		}
		try (Connection c = dataSource.getConnection()) {
			if (ShardTenancySchemas.migratedByFlyway(c)) {
				throw new MigrationToolConflictException(what, "The library's schema on " + what
						+ " was installed by Flyway (table " + ShardTenancySchemas.FLYWAY_HISTORY_TABLE
						+ "); Liquibase does not migrate it: keep migrating this database with Flyway "
						+ "(hibernate-shard-tenancy-flyway)");
			}
			Database database = DatabaseFactory.getInstance().findCorrectDatabaseImplementation(new JdbcConnection(c));
			ClassLoader loader = Thread.currentThread().getContextClassLoader() != null
					? Thread.currentThread().getContextClassLoader() : ShardTenancyMigrations.class.getClassLoader();
			Liquibase liquibase = new Liquibase(path, new ClassLoaderResourceAccessor(loader), database);
			// No anonymous usage analytics: they call home, and a closed network turns that into a start-up delay.
			Scope.child(AnalyticsArgs.ENABLED.getKey(), false,
					() -> liquibase.update(new Contexts(), new LabelExpression()));
			log.debug("Migrated {} with {}", what, path);
		}
		catch (MigrationToolConflictException ex) {
			throw ex;
		}
		catch (Exception ex) {
			throw new IllegalStateException("Liquibase migration " + path + " failed on " + what + ": "
					+ ex.getMessage(), ex);
		}
	}

}
