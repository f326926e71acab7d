package io.github.shardtenancy.internal.move;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;

import io.github.shardtenancy.TenantIds;
import io.github.shardtenancy.internal.move.MoveSql.Progress;
import io.github.shardtenancy.spi.BulkCopier;
import io.github.shardtenancy.internal.topology.Topology;

import static io.github.shardtenancy.internal.move.MoveSql.MAX_PARAMETERS;
import static io.github.shardtenancy.internal.move.MoveSql.MAX_ROWS_PER_INSERT;
import static io.github.shardtenancy.internal.move.MoveSql.bindRows;
import static io.github.shardtenancy.internal.move.MoveSql.multiRowInsert;
import static io.github.shardtenancy.internal.move.MoveSql.pause;
import static io.github.shardtenancy.internal.move.MoveSql.values;
import static io.github.shardtenancy.internal.move.MoveSql.withConnection;

/**
 * The bulk copy of a tenant's rows from one snapshot of the source to the target, through a {@link BulkCopier} found
 * on the class path (such as PostgreSQL's {@code COPY}) or with multi-row {@code INSERT}s. All writes go through a
 * mover connection ({@link io.github.shardtenancy.spi.FenceDialect#beginMover}), re-marked after every commit because
 * the mark is transaction-scoped on PostgreSQL. Stateless; thread-safe.
 */
final class BulkCopy {

	/** The bulk copiers on the class path (e.g. PostgreSQL COPY), found once. */
	static final List<BulkCopier> COPIERS = ServiceLoader.load(BulkCopier.class, BulkCopy.class.getClassLoader())
		.stream()
		.map(ServiceLoader.Provider::get)
		.toList();

	BulkCopy() {
	}

	/**
	 * @return how {@link #copy} copies between two shards: the simple class name of the {@link BulkCopier} it uses,
	 * or {@code multi-row INSERT}
	 * @throws SQLException if a shard cannot be reached
	 */
	static String copyMethod(Topology.Shard from, Topology.Shard to) throws SQLException {
		try (Connection source = from.dataSource().getConnection();
				Connection target = to.dataSource().getConnection()) {
			BulkCopier copier = bulkCopier(source, target);
			return (copier != null) ? copier.getClass().getSimpleName() : "multi-row INSERT";
		}
	}

	/** @return the first bulk copier that supports both connections, or {@code null} (multi-row INSERTs then) */
	static BulkCopier bulkCopier(Connection source, Connection target) throws SQLException {
		for (BulkCopier copier : COPIERS) {
			if (copier.supports(source, target)) {
				return copier;
			}
		}
		return null;
	}

	/**
	 * Copies a tenant's rows from one snapshot of the source to the target, table by table (parents first), committing
	 * on the target every {@code batchSize} rows. The target must hold none of the tenant's rows. If the copy fails,
	 * both its connections are discarded ({@link MoveSql#withConnection}), never returned to their pools: a failed or
	 * cancelled {@code COPY} can leave a connection whose protocol state is broken.
	 * @return rows copied per table
	 * @throws SQLException on a database error; the failure of a table's copy names the table and both shards and
	 * keeps the SQLState of the database's error, which is its cause
	 */
	static Map<String, Long> copy(Topology.Shard from, Topology.Shard to, String tenantId,
			List<TablePlan> tables, int batchSize, Duration throttle, Progress progress) throws SQLException {
		return withConnection(from, source -> {
			int isolation = source.getTransactionIsolation();
			from.dialect().beginSnapshotRead(source);
			Map<String, Long> copied = withConnection(to, target -> {
				target.setAutoCommit(false);
				to.dialect().beginMover(target, tenantId);
				Map<String, Long> rows = copyTables(source, from, target, to, tenantId, tables, batchSize, throttle,
						progress);
				to.dialect().end(target);
				target.setAutoCommit(true);
				return rows;
			});
			source.commit();
			source.setAutoCommit(true);
			source.setTransactionIsolation(isolation);
			return copied;
		});
	}

	/** Copies every table on the two connections: the source in its snapshot, the target under the mover's mark. */
	private static Map<String, Long> copyTables(Connection source, Topology.Shard from, Connection target,
			Topology.Shard to, String tenantId, List<TablePlan> tables, int batchSize, Duration throttle,
			Progress progress) throws SQLException {
		Map<String, Long> copied = new LinkedHashMap<>();
		BulkCopier copier = bulkCopier(source, target);
		if (copier != null) {
			TenantIds.requireValid(tenantId); // inlined as a literal: letters, digits and . _ : - only
		}
		for (TablePlan table : tables) {
			long rows;
			try {
				rows = (copier != null)
						? copyTable(copier, source, target, to, tenantId, table, batchSize, throttle, progress)
						: insertTable(source, target, to, tenantId, table, batchSize, throttle, progress);
			}
			catch (SQLException ex) {
				throw new SQLException("copy of table " + table.sqlName() + " from shard '" + from.id()
						+ "' to shard '" + to.id() + "' failed: " + Mover.reason(ex), ex.getSQLState(),
						ex.getErrorCode(), ex);
			}
			copied.put(table.sqlName(), rows);
			progress.batchDone("copy table=" + table.sqlName() + " rows=" + rows + " (table done)");
		}
		return copied;
	}

	/** Copies one table with the bulk copier. @return rows copied */
	private static long copyTable(BulkCopier copier, Connection source, Connection target, Topology.Shard to,
			String tenantId, TablePlan table, int batchSize, Duration throttle, Progress progress)
			throws SQLException {
		String select = "SELECT " + table.columnList() + " FROM " + table.sqlName() + " WHERE "
				+ table.tenantColumn() + " = '" + tenantId.replace("'", "''") + "'";
		return copier.copy(source, select, target, table.sqlName(), table.columnList(), batchSize, soFar -> {
			target.commit();
			to.dialect().beginMover(target, tenantId);
			progress.batchDone("copy table=" + table.sqlName() + " rows=" + soFar);
			pause(throttle);
		});
	}

	/** Copies one table with multi-row {@code INSERT}s. @return rows copied */
	private static long insertTable(Connection source, Connection target, Topology.Shard to, String tenantId,
			TablePlan table, int batchSize, Duration throttle, Progress progress) throws SQLException {
		long rows = 0;
		int columns = table.columns().size();
		boolean withoutTriggers = to.dialect().moverWritesWithoutTriggers(target, table.sqlName());
		// Multi-row INSERTs: one statement (and one execution of the target's row triggers' plan) per
		// chunk instead of per row, the largest round-trip saving on PostgreSQL.
		int perStatement = Math.max(1, Math.min(Math.min(batchSize, MAX_ROWS_PER_INSERT), MAX_PARAMETERS / columns));
		List<Object[]> chunk = new ArrayList<>(perStatement);
		try (PreparedStatement select = source.prepareStatement("SELECT " + table.selectList() + " FROM "
				+ table.sqlName() + " WHERE " + table.tenantColumn() + " = ?");
				PreparedStatement insert = target.prepareStatement(multiRowInsert(table, perStatement))) {
			select.setString(1, tenantId);
			select.setFetchSize(Math.min(Math.max(batchSize, perStatement), 5000));
			long sinceCommit = 0;
			try (ResultSet rs = select.executeQuery()) {
				while (rs.next()) {
					chunk.add(values(rs, table));
					rows++;
					if (chunk.size() == perStatement) {
						bindRows(insert, table, chunk);
						insert.executeUpdate();
						sinceCommit += chunk.size();
						chunk.clear();
						if (sinceCommit >= batchSize) {
							target.commit();
							to.dialect().beginMover(target, tenantId);
							to.dialect().moverWritesWithoutTriggers(target, table.sqlName());
							sinceCommit = 0;
							progress.batchDone("copy table=" + table.sqlName() + " rows=" + rows);
							pause(throttle);
						}
					}
				}
			}
			if (!chunk.isEmpty()) {
				try (PreparedStatement last = target.prepareStatement(multiRowInsert(table, chunk.size()))) {
					bindRows(last, table, chunk);
					last.executeUpdate();
				}
			}
			target.commit();
			to.dialect().beginMover(target, tenantId);
			if (withoutTriggers && rows > 0) {
				// The foreign keys' own checks were off with the triggers: check the copied rows now.
				to.dialect().checkForeignKeys(target, table.sqlName(), table.tenantColumn(), tenantId,
						table.keys().stream().map(TablePlan.KeyColumn::name).toList(), null);
				target.commit();
				to.dialect().beginMover(target, tenantId);
			}
		}
		return rows;
	}

}
