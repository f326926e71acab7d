package io.github.shardtenancy.internal.move;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.shardtenancy.internal.topology.Topology;

/**
 * SQL helpers shared by the mover's row work: transactions, reads across tenants under the maintenance mark,
 * multi-row {@code INSERT}s, throttling and small list utilities. Stateless; thread-safe.
 */
final class MoveSql {

	MoveSql() {
	}

	/**
	 * Called after every batch, with a description of the progress; may throw to stop the work (lost ownership).
	 */
	@FunctionalInterface
	interface Progress {

		/** @param stepData progress, e.g. {@code table=NOTE rows=2000} */
		void batchDone(String stepData);

	}

	/**
	 * Work run inside {@link #inTransaction} or {@link #acrossTenants}.
	 * @param <T> its result
	 */
	@FunctionalInterface
	interface SqlWork<T> {

		/**
		 * @return the result
		 * @throws SQLException on a database error
		 */
		T run() throws SQLException;

	}

	/** Rows per multi-row INSERT of the bulk copy, at most. */
	static final int MAX_ROWS_PER_INSERT = 1000;

	/** Bind parameters per statement, at most (PostgreSQL's protocol allows 32767). */
	static final int MAX_PARAMETERS = 30_000;

	/**
	 * Work on a connection lent by {@link #withConnection}.
	 * @param <T> its result
	 */
	@FunctionalInterface
	interface ConnectionWork<T> {

		/**
		 * @param c the connection, for this work only: not to be closed or kept
		 * @return the result
		 * @throws SQLException on a database error
		 */
		T run(Connection c) throws SQLException;

	}

	/**
	 * Runs work on a connection borrowed from a shard's pool: returned to the pool once the work has returned, or,
	 * if it threw, its open transaction rolled back where the connection still answers and the connection discarded
	 * ({@link Topology.Shard#discard}), whatever state the failure left it in (a failed or cancelled {@code COPY}, a
	 * session setting not reset), so that no later borrower gets it. Failures to roll back or to discard are added
	 * to the work's failure, which is rethrown as it was.
	 * @param shard the shard whose pool lends the connection
	 * @param work the work
	 * @return what the work returned
	 * @throws SQLException if no connection can be had, or what the work threw
	 */
	static <T> T withConnection(Topology.Shard shard, ConnectionWork<T> work) throws SQLException {
		Connection c = shard.dataSource().getConnection();
		T result;
		try {
			result = work.run(c);
		}
		catch (SQLException | RuntimeException | Error ex) {
			rollbackQuietly(c, ex);
			try {
				shard.discard(c);
			}
			catch (SQLException | RuntimeException discard) {
				ex.addSuppressed(discard);
			}
			throw ex;
		}
		c.close();
		return result;
	}

	/**
	 * Runs work in one transaction on the connection: commits it, or rolls it back and rethrows; auto-commit is on
	 * again afterwards either way. A failure to roll back or to restore auto-commit after the work failed is added to
	 * the work's failure, which is rethrown as it was.
	 */
	static <T> T inTransaction(Connection c, SqlWork<T> work) throws SQLException {
		c.setAutoCommit(false);
		T result;
		try {
			result = work.run();
			c.commit();
		}
		catch (SQLException | RuntimeException ex) {
			rollbackQuietly(c, ex);
			autoCommitQuietly(c, ex);
			throw ex;
		}
		c.setAutoCommit(true);
		return result;
	}

	/**
	 * Runs read-only work that reads a tenant's rows without being bound to it, in a transaction under the
	 * maintenance mark ({@link io.github.shardtenancy.spi.FenceDialect#beginMaintenance}), which row-level security
	 * lets read every row; rolls the transaction back and restores auto-commit afterwards (if the work failed, failures
	 * to do so are added to its failure, which is rethrown as it was).
	 * @param shard the shard of the connection
	 * @param c a connection of the shard, in auto-commit mode
	 * @param work the reads
	 * @return what the work returned
	 * @throws SQLException on a database error
	 */
	static <T> T acrossTenants(Topology.Shard shard, Connection c, SqlWork<T> work) throws SQLException {
		shard.dialect().beginMaintenance(c);
		T result;
		try {
			result = work.run();
		}
		catch (SQLException | RuntimeException ex) {
			rollbackQuietly(c, ex);
			autoCommitQuietly(c, ex);
			throw ex;
		}
		try {
			c.rollback();
		}
		finally {
			c.setAutoCommit(true);
		}
		return result;
	}

	/**
	 * The clause of the mover's INSERTs that writes the source's values into identity columns, also those
	 * {@code GENERATED ALWAYS}, which refuse a value without it (SQL:2003; PostgreSQL and H2 both take it, and ignore
	 * it on a table without an identity column: https://www.postgresql.org/docs/current/sql-insert.html). The
	 * target's sequence is left as it is.
	 */
	static final String OVERRIDING = "OVERRIDING SYSTEM VALUE";

	/**
	 * @return {@code INSERT INTO t (c1, c2) OVERRIDING SYSTEM VALUE VALUES (?, ?), (?, ?), ...} with {@code rows}
	 * rows
	 */
	static String multiRowInsert(TablePlan table, int rows) {
		String row = "(" + String.join(", ", table.columns().stream().map(c -> "?").toList()) + ")";
		StringBuilder sql = new StringBuilder("INSERT INTO ").append(table.sqlName())
			.append(" (")
			.append(table.columnList())
			.append(") ")
			.append(OVERRIDING)
			.append(" VALUES ");
		for (int i = 0; i < rows; i++) {
			sql.append(i == 0 ? "" : ", ").append(row);
		}
		return sql.toString();
	}

	static void bindRows(PreparedStatement insert, TablePlan table, List<Object[]> rows) throws SQLException {
		int i = 1;
		for (Object[] row : rows) {
			for (Object value : row) {
				table.bind(insert, i++, value);
			}
		}
	}

	/** Binds the rows' values with {@code setObject}, one after the other, from parameter {@code first} on. */
	static void bindRows(PreparedStatement statement, List<Object[]> rows, int first) throws SQLException {
		int i = first;
		for (Object[] row : rows) {
			for (Object value : row) {
				statement.setObject(i++, value);
			}
		}
	}

	/**
	 * Binds keys for a dialect's {@linkplain io.github.shardtenancy.spi.FenceDialect#keyList key list}: one
	 * {@code text} array per key column, the values of one key at the same index in each.
	 * @param keys the keys, each with one value (its text) per key column
	 * @return the index of the next parameter
	 */
	static int bindKeyList(Connection c, PreparedStatement ps, int first, int columns, List<? extends Object[]> keys)
			throws SQLException {
		for (int column = 0; column < columns; column++) {
			String[] values = new String[keys.size()];
			for (int k = 0; k < values.length; k++) {
				Object[] key = keys.get(k);
				values[k] = String.valueOf(key[column]);
			}
			ps.setArray(first + column, c.createArrayOf("text", values));
		}
		return first + columns;
	}

	/** @return the current row's values ({@link TablePlan#read}), in the order of the table's columns */
	static Object[] values(ResultSet rs, TablePlan table) throws SQLException {
		Object[] values = new Object[table.columns().size()];
		ResultSetMetaData meta = rs.getMetaData();
		for (int i = 0; i < values.length; i++) {
			values[i] = table.read(rs, meta, i + 1);
		}
		return values;
	}

	static <T> List<List<T>> chunks(List<T> items, int size) {
		List<List<T>> chunks = new ArrayList<>();
		for (int i = 0; i < items.size(); i += size) {
			chunks.add(items.subList(i, Math.min(items.size(), i + size)));
		}
		return chunks;
	}

	static int indexOf(List<String> columns, String column) {
		for (int i = 0; i < columns.size(); i++) {
			if (columns.get(i).equalsIgnoreCase(column)) {
				return i;
			}
		}
		throw new IllegalStateException("No column " + column + " in " + columns);
	}

	static List<TablePlan> reversed(List<TablePlan> tables) {
		List<TablePlan> copy = new ArrayList<>(tables);
		java.util.Collections.reverse(copy);
		return copy;
	}

	/**
	 * Rolls back the connection's transaction, if one is open, after a failure; what the rollback throws (pgjdbc
	 * may throw a {@link RuntimeException} on a connection a failed {@code COPY} left behind) is added to the failure.
	 */
	static void rollbackQuietly(Connection c, Throwable cause) {
		try {
			if (!c.getAutoCommit()) {
				c.rollback();
			}
		}
		catch (SQLException | RuntimeException ex) {
			cause.addSuppressed(ex);
		}
	}

	/** Turns auto-commit on again after a failure; what that throws is added to the failure. */
	static void autoCommitQuietly(Connection c, Throwable cause) {
		try {
			c.setAutoCommit(true);
		}
		catch (SQLException | RuntimeException ex) {
			cause.addSuppressed(ex);
		}
	}

	static void pause(Duration throttle) {
		if (!throttle.isZero()) {
			try {
				Thread.sleep(throttle.toMillis());
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while throttling", ex);
			}
		}
	}

}
