package io.github.shardtenancy.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

import io.github.shardtenancy.spi.FenceDialect;

/**
 * The PostgreSQL fence: PL/pgSQL functions installed by the shard changelog. The variables are set with
 * {@code set_config(name, value, true)}, which lasts until the end of the current transaction, so {@link #begin}
 * opens the transaction itself (auto-commit off) and nothing outlives it: not a commit, not a rollback. A
 * session-level {@code SET} would be wrong twice over: it stays on the pooled connection for the next borrower, and
 * it is undone when the transaction it ran in rolls back.
 */
public final class PostgresFenceDialect implements FenceDialect {

	@Override
	public boolean supports(String databaseProductName) {
		return "PostgreSQL".equalsIgnoreCase(databaseProductName);
	}

	@Override
	public void begin(Connection connection, String tenantId, long directoryVersion) throws SQLException {
		connection.setAutoCommit(false);
		try (PreparedStatement ps = connection.prepareStatement("SELECT shard_fence_begin(?, ?)")) {
			ps.setString(1, tenantId);
			ps.setLong(2, directoryVersion);
			ps.execute();
		}
	}

	@Override
	public void end(Connection connection) throws SQLException {
		// Transaction-scoped variables are gone with the transaction; HikariCP rolls back an open one on return.
	}

	@Override
	public void beginMover(Connection connection, String tenantId) throws SQLException {
		connection.setAutoCommit(false);
		try (PreparedStatement ps = connection.prepareStatement("SELECT shard_fence_mover(?)")) {
			ps.setString(1, tenantId);
			ps.execute();
		}
	}

	@Override
	public void installWriteCheck(Connection connection, String table, String tenantColumn) throws SQLException {
		try (PreparedStatement ps = connection.prepareStatement("SELECT shard_fence_install(?, ?)")) {
			ps.setString(1, Identifiers.require(table));
			ps.setString(2, Identifiers.require(tenantColumn));
			ps.execute();
		}
	}

}
