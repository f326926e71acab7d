package io.github.shardtenancy.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

import io.github.shardtenancy.spi.FenceDialect;

/**
 * The PostgreSQL fence: PL/pgSQL functions installed by the shard changelog ({@code shard_fence_begin},
 * {@code shard_fence_mover}, {@code shard_fence_install} and the per-table row triggers).
 *
 * <p>The variables ({@code shard_tenancy.tenant}, {@code shard_tenancy.version}, {@code shard_tenancy.role}) are set
 * with {@code set_config(name, value, true)}, which lasts until the end of the current transaction. {@link #begin}
 * and {@link #beginMover} therefore switch auto-commit off and open the transaction themselves (the fence check and
 * the binding run as its first statement), and nothing outlives it: not a commit, not a rollback. A session-level
 * {@code SET} would be wrong twice over: it stays on the pooled connection for the next borrower, and it is undone
 * when the transaction it ran in rolls back.
 *
 * <p>Consequences for callers: the work must run in that transaction and commit it (Hibernate and Spring's
 * transaction managers do; plain JDBC code on {@link io.github.shardtenancy.jdbc.TenantRoutingDataSource} must
 * commit, since auto-commit is off); a second transaction on the same borrowed connection runs without tenant and
 * its writes are rejected ({@code NO_TENANT}), which is why each transaction borrows its own connection. The mover
 * mark is transaction-scoped for the same reason: a mover connection that was not cleaned up cannot leak its right
 * to bypass the fence to a later borrower.
 *
 * <p>{@link #end} rolls back a transaction still open on the connection (none is, after a commit or rollback), so
 * whatever it bound is gone before the connection returns to its pool, independently of the pool's own reset. It
 * sends nothing to the server when no transaction is open. Stateless and thread-safe.
 */
public final class PostgresFenceDialect implements FenceDialect {

	/** Checks the fence and binds the variables: one PL/pgSQL call (shard.xml). */
	private static final String BEGIN = "SELECT shard_fence_begin(?, ?)";

	@Override
	public boolean supports(String databaseProductName) {
		return "PostgreSQL".equalsIgnoreCase(databaseProductName);
	}

	@Override
	public void begin(Connection connection, String tenantId, long directoryVersion) throws SQLException {
		connection.setAutoCommit(false);
		try (PreparedStatement ps = connection.prepareStatement(BEGIN)) {
			ps.setString(1, tenantId);
			ps.setLong(2, directoryVersion);
			ps.execute();
		}
	}

	/**
	 * {@code SELECT shard_fence_begin(?, ?)}: pgjdbc sends it with the transaction's first query (and the
	 * {@code BEGIN} it adds itself) in one flight, so a transaction that starts with a query makes as many round trips
	 * as without the library.
	 */
	@Override
	public String beginStatement() {
		return BEGIN;
	}

	@Override
	public void end(Connection connection) throws SQLException {
		if (!connection.isClosed() && !connection.getAutoCommit()) {
			// pgjdbc sends ROLLBACK only when a transaction is open; after a commit this is a local no-op.
			connection.rollback();
		}
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

	/**
	 * Calls {@code shard_change_install(table, column)} from {@code db/shard-tenancy/shard-changes.xml}: registers the
	 * table and (re)creates its {@code AFTER} row trigger with the tenant column and primary key as arguments.
	 */
	@Override
	public void installChangeCapture(Connection connection, String table, String tenantColumn) throws SQLException {
		try (PreparedStatement ps = connection.prepareStatement("SELECT shard_change_install(?, ?)")) {
			ps.setString(1, Identifiers.require(table));
			ps.setString(2, Identifiers.require(tenantColumn));
			ps.execute();
		}
	}

}
