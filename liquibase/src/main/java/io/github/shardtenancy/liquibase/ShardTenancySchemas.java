package io.github.shardtenancy.liquibase;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Locale;

import javax.sql.DataSource;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every migration tool does the same way around the library's schema: recording a shard's logical id after its
 * migration, and telling which tool installed the library's schema in a database, so that a database is never
 * migrated by both Liquibase ({@link ShardTenancyMigrations}) and Flyway (the {@code hibernate-shard-tenancy-flyway}
 * module). Uses no Liquibase class. Stateless and thread-safe.
 */
public final class ShardTenancySchemas {

	/** The table in which Flyway records the library's own migrations (the application's have a table of their own). */
	public static final String FLYWAY_HISTORY_TABLE = "shard_tenancy_schema_history";

	/** The author of every change set of the library's Liquibase changelogs. */
	static final String LIQUIBASE_AUTHOR = "shard-tenancy";

	private static final Logger log = LoggerFactory.getLogger(ShardTenancySchemas.class);

	private ShardTenancySchemas() {
	}

	/**
	 * Records the shard's logical id in {@code shard_fence_identity} (named in every fence rejection) unless it is
	 * there already; on PostgreSQL, warns when the fence's DDL refusal could not be installed (not a superuser).
	 * @param shard a pool on the migrated shard database
	 * @param shardId the shard's logical id
	 * @throws ShardIdentityConflictException if the database already belongs to another shard id (two shard ids
	 * configured with the same database)
	 * @throws IllegalStateException on a database error, with the cause
	 */
	public static void recordShardIdentity(DataSource shard, String shardId) {
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
	 * The shard schema installs the event trigger that refuses DDL on a tenant-bound connection only when it runs as
	 * a superuser (only a superuser can create an event trigger); says so when it is missing.
	 */
	private static void warnIfNoDdlRefusal(Connection c, String shardId) throws SQLException {
		try (PreparedStatement ps = c.prepareStatement("SELECT current_user, EXISTS (SELECT 1 FROM pg_event_trigger "
				+ "WHERE evtname = 'shard_fence_ddl_check')"); ResultSet rs = ps.executeQuery()) {
			if (rs.next() && !rs.getBoolean(2)) {
				log.warn("Shard '{}': the fence's DDL refusal (event trigger shard_fence_ddl_check) is not installed: "
						+ "creating an event trigger needs a superuser and role '{}' is not one; DDL on tenant tables "
						+ "from a tenant-bound connection is not refused until the shard schema is migrated once as a "
						+ "superuser", shardId, rs.getString(1));
			}
		}
	}

	/**
	 * @param c a connection to the database
	 * @return whether Flyway migrated the library's schema in this database (its history table
	 * {@value #FLYWAY_HISTORY_TABLE} exists)
	 * @throws SQLException on a database error
	 */
	public static boolean migratedByFlyway(Connection c) throws SQLException {
		return tableExists(c, FLYWAY_HISTORY_TABLE);
	}

	/**
	 * @param c a connection to the database
	 * @return whether Liquibase migrated the library's schema in this database (its {@code DATABASECHANGELOG} holds
	 * change sets of the library's changelogs)
	 * @throws SQLException on a database error
	 */
	public static boolean migratedByLiquibase(Connection c) throws SQLException {
		if (!tableExists(c, "databasechangelog")) {
			return false;
		}
		// Unquoted, as Liquibase creates it: folded to upper case by H2 and to lower case by PostgreSQL.
		try (PreparedStatement ps = c
			.prepareStatement("SELECT COUNT(*) FROM databasechangelog WHERE author = ?")) {
			ps.setString(1, LIQUIBASE_AUTHOR);
			try (ResultSet rs = ps.executeQuery()) {
				return rs.next() && rs.getLong(1) > 0;
			}
		}
	}

	/** Looks the table up in the connection's current schema as written, in lower and in upper case. */
	private static boolean tableExists(Connection c, String table) throws SQLException {
		DatabaseMetaData metaData = c.getMetaData();
		String schema = c.getSchema();
		for (String name : new String[] { table, table.toLowerCase(Locale.ROOT), table.toUpperCase(Locale.ROOT) }) {
			try (ResultSet rs = metaData.getTables(c.getCatalog(), schema, name, new String[] { "TABLE" })) {
				if (rs.next()) {
					return true;
				}
			}
		}
		return false;
	}

}
