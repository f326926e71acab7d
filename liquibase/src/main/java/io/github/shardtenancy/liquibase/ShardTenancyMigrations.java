package io.github.shardtenancy.liquibase;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
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
	 * @throws IllegalStateException if a migration fails, with the cause
	 */
	public static void migrateShard(DataSource shard, String shardId, List<String> applicationChangelogs) {
		update(shard, SHARD_CHANGELOG, "shard '" + shardId + "'");
		for (String changelog : applicationChangelogs) {
			update(shard, changelog, "shard '" + shardId + "'");
		}
		try (Connection c = shard.getConnection()) {
			c.setAutoCommit(true);
			String recorded = null;
			try (PreparedStatement ps = c.prepareStatement("SELECT shard_id FROM shard_fence_identity WHERE id = 1");
					ResultSet rs = ps.executeQuery()) {
				if (rs.next()) {
					recorded = rs.getString(1);
				}
			}
			if (recorded != null && !recorded.equals(shardId)) {
				// Two shard ids on one database would make a move between them copy a tenant onto itself and then
				// clean it away: refuse before anything is routed.
				throw new ShardIdentityConflictException(shardId, recorded);
			}
			if (recorded == null) {
				try (PreparedStatement ps = c
					.prepareStatement("INSERT INTO shard_fence_identity (id, shard_id) VALUES (1, ?)")) {
					ps.setString(1, shardId);
					ps.executeUpdate();
				}
			}
			if ("PostgreSQL".equalsIgnoreCase(c.getMetaData().getDatabaseProductName())) {
				warnIfNoDdlRefusal(c, shardId);
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Cannot record the id of shard '" + shardId + "': " + ex.getMessage(), ex);
		}
	}

	/**
	 * The shard changelog installs the event trigger that refuses DDL on a tenant-bound connection only when it runs
	 * as a superuser (only a superuser can create an event trigger); says so when it is missing.
	 */
	private static void warnIfNoDdlRefusal(Connection c, String shardId) throws SQLException {
		try (PreparedStatement ps = c.prepareStatement("SELECT current_user, EXISTS (SELECT 1 FROM pg_event_trigger "
				+ "WHERE evtname = 'shard_fence_ddl_check')"); ResultSet rs = ps.executeQuery()) {
			if (rs.next() && !rs.getBoolean(2)) {
				log.warn("Shard '{}': the fence's DDL refusal (event trigger shard_fence_ddl_check) is not installed: "
						+ "creating an event trigger needs a superuser and role '{}' is not one; DDL on tenant tables "
						+ "from a tenant-bound connection is not refused until the shard changelog runs once as a "
						+ "superuser", shardId, rs.getString(1));
			}
		}
	}

	private static void update(DataSource dataSource, String changelog, String what) {
		String path = changelog.startsWith("classpath:") ? changelog.substring("classpath:".length()) : changelog;
		while (path.startsWith("/")) {
			path = path.substring(1);
		}
		try (Connection c = dataSource.getConnection()) {
			Database database = DatabaseFactory.getInstance().findCorrectDatabaseImplementation(new JdbcConnection(c));
			ClassLoader loader = Thread.currentThread().getContextClassLoader() != null
					? Thread.currentThread().getContextClassLoader() : ShardTenancyMigrations.class.getClassLoader();
			Liquibase liquibase = new Liquibase(path, new ClassLoaderResourceAccessor(loader), database);
			// No anonymous usage analytics: they call home, and a closed network turns that into a start-up delay.
			Scope.child(AnalyticsArgs.ENABLED.getKey(), false,
					() -> liquibase.update(new Contexts(), new LabelExpression()));
			log.debug("Migrated {} with {}", what, path);
		}
		catch (Exception ex) {
			throw new IllegalStateException("Liquibase migration " + path + " failed on " + what + ": "
					+ ex.getMessage(), ex);
		}
	}

}
