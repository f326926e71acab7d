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
	 * Runs work in one transaction on the connection: commits it, or rolls it back and rethrows; auto-commit is on
	 * again afterwards either way.
	 */
	static <T> T inTransaction(Connection c, SqlWork<T> work) throws SQLException {
		c.setAutoCommit(false);
		try {
			T result = work.run();
			c.commit();
			return result;
		}
		catch (SQLException | RuntimeException ex) {
			c.rollback();
			throw ex;
		}
		finally {
			c.setAutoCommit(true);
		}
	}

	/**
	 * Runs read-only work that reads a tenant's rows without being bound to it, in a transaction under the
	 * maintenance mark ({@link io.github.shardtenancy.spi.FenceDialect#beginMaintenance}), which row-level security
	 * lets read every row; rolls the transaction back and restores auto-commit afterwards.
	 * @param shard the shard of the connection
	 * @param c a connection of the shard, in auto-commit mode
	 * @param work the reads
	 * @return what the work returned
	 * @throws SQLException on a database error
	 */
	static <T> T acrossTenants(Topology.Shard shard, Connection c, SqlWork<T> work) throws SQLException {
		shard.dialect().beginMaintenance(c);
		try {
			return work.run();
		}
		finally {
			try {
				c.rollback();
			}
			finally {
				c.setAutoCommit(true);
			}
		}
	}

	/** @return {@code INSERT INTO t (c1, c2) VALUES (?, ?), (?, ?), ...} with {@code rows} rows */
	static String multiRowInsert(TablePlan table, int rows) {
		String row = "(" + String.join(", ", table.columns().stream().map(c -> "?").toList()) + ")";
		StringBuilder sql = new StringBuilder("INSERT INTO ").append(table.sqlName())
			.append(" (")
			.append(table.columnList())
			.append(") VALUES ");
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

	static void rollbackQuietly(Connection c, Exception cause) {
		try {
			if (!c.getAutoCommit()) {
				c.rollback();
			}
		}
		catch (SQLException ex) {
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
