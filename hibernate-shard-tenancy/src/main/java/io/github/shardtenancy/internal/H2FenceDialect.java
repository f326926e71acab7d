package io.github.shardtenancy.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Locale;

import io.github.shardtenancy.spi.FenceDialect;

/**
 * The H2 fence: the shard changelog installs Java functions ({@code SHARD_FENCE_BEGIN}, {@code SHARD_FENCE_END},
 * {@code SHARD_FENCE_MOVER}) and a row trigger class, from the {@code hibernate-shard-tenancy-liquibase} artifact.
 * H2's {@code @variables} are per session and survive a rollback, so {@link #end} clears them before the connection
 * returns to its pool.
 */
public final class H2FenceDialect implements FenceDialect {

	@Override
	public boolean supports(String databaseProductName) {
		return "H2".equalsIgnoreCase(databaseProductName);
	}

	@Override
	public void begin(Connection connection, String tenantId, long directoryVersion) throws SQLException {
		try (PreparedStatement ps = connection.prepareStatement("CALL SHARD_FENCE_BEGIN(?, ?)")) {
			ps.setString(1, tenantId);
			ps.setLong(2, directoryVersion);
			ps.execute();
		}
	}

	@Override
	public void end(Connection connection) throws SQLException {
		try (PreparedStatement ps = connection.prepareStatement("CALL SHARD_FENCE_END()")) {
			ps.execute();
		}
	}

	@Override
	public void beginMover(Connection connection, String tenantId) throws SQLException {
		try (PreparedStatement ps = connection.prepareStatement("CALL SHARD_FENCE_MOVER(?)")) {
			ps.setString(1, tenantId);
			ps.execute();
		}
	}

	@Override
	public void installWriteCheck(Connection connection, String table, String tenantColumn) throws SQLException {
		installTrigger(connection, table, tenantColumn, "shard_fence_table", "SHARD_FENCE_", "BEFORE",
				"io.github.shardtenancy.liquibase.h2.H2FenceTrigger");
	}

	/**
	 * Registers the table in {@code shard_capture_table} and creates an {@code AFTER} row trigger running
	 * {@code io.github.shardtenancy.liquibase.h2.H2CaptureTrigger}.
	 */
	@Override
	public void installChangeCapture(Connection connection, String table, String tenantColumn) throws SQLException {
		installTrigger(connection, table, tenantColumn, "shard_capture_table", "SHARD_CAPTURE_", "AFTER",
				"io.github.shardtenancy.liquibase.h2.H2CaptureTrigger");
	}

	/**
	 * Registers a tenant table and its tenant column in a registry table (which the trigger reads when H2 loads it),
	 * then creates, if missing, a row trigger on every write to the table.
	 */
	private static void installTrigger(Connection connection, String table, String tenantColumn, String registry,
			String triggerPrefix, String timing, String triggerClass) throws SQLException {
		String tableName = Identifiers.require(table).toUpperCase(Locale.ROOT);
		String column = Identifiers.require(tenantColumn).toUpperCase(Locale.ROOT);
		try (PreparedStatement ps = connection.prepareStatement(
				"MERGE INTO " + registry + " (table_name, tenant_column) KEY (table_name) VALUES (?, ?)")) {
			ps.setString(1, tableName);
			ps.setString(2, column);
			ps.executeUpdate();
		}
		String trigger = triggerPrefix + tableName.replace('.', '_');
		try (PreparedStatement ps = connection.prepareStatement("CREATE TRIGGER IF NOT EXISTS " + trigger + " "
				+ timing + " INSERT, UPDATE, DELETE ON " + tableName + " FOR EACH ROW CALL '" + triggerClass + "'")) {
			ps.execute();
		}
	}

	/** H2's {@code SNAPSHOT} isolation: one snapshot of the whole database from the transaction's first read. */
	@Override
	public void beginSnapshotRead(Connection connection) throws SQLException {
		connection.setAutoCommit(false);
		try (PreparedStatement ps = connection
			.prepareStatement("SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL SNAPSHOT")) {
			ps.execute();
		}
	}

}
