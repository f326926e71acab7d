package io.github.shardtenancy.internal.move;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;

import io.github.shardtenancy.internal.topology.Topology;

import static io.github.shardtenancy.internal.move.MoveSql.inTransaction;
import static io.github.shardtenancy.internal.move.MoveSql.reversed;
import static io.github.shardtenancy.internal.move.MoveSql.withConnection;

/**
 * Deletes a tenant's rows from a shard: the clean of a move's source, the removal of an aborted move's copy, and the
 * purge of a deleted tenant. Stateless; thread-safe.
 */
public final class RowDeletion {

	private RowDeletion() {
	}

	/**
	 * Deletes a tenant's rows from a shard, children first, in one transaction on a mover connection.
	 * @param shard the shard
	 * @param tenantId the tenant
	 * @param tables the tables, parents first
	 * @return rows deleted
	 * @throws SQLException on a database error
	 */
	public static long delete(Topology.Shard shard, String tenantId, List<TablePlan> tables) throws SQLException {
		return delete(shard, tenantId, tables, false);
	}

	/**
	 * Deletes a moved tenant's rows from a shard as {@link #delete(Topology.Shard, String, List)} does, without
	 * firing the application's triggers where the dialect can
	 * ({@link io.github.shardtenancy.spi.FenceDialect#moverWritesWithoutTriggers}): the clean of a move's source, the
	 * removal of an aborted (or restarted) copy on its target. The rows are not the application's deletion: an audit
	 * log or an outbox must not see them deleted.
	 * @param shard the shard
	 * @param tenantId the tenant
	 * @param tables the tables, parents first
	 * @return rows deleted
	 * @throws SQLException on a database error
	 */
	static long deleteMoved(Topology.Shard shard, String tenantId, List<TablePlan> tables) throws SQLException {
		return delete(shard, tenantId, tables, true);
	}

	private static long delete(Topology.Shard shard, String tenantId, List<TablePlan> tables, boolean moved)
			throws SQLException {
		return withConnection(shard, c -> {
			long deleted = inTransaction(c, () -> {
				shard.dialect().beginMover(c, tenantId);
				long rows = 0;
				for (TablePlan table : reversed(tables)) {
					if (moved) {
						shard.dialect().moverWritesWithoutTriggers(c, table.sqlName());
					}
					try (PreparedStatement ps = c.prepareStatement(
							"DELETE FROM " + table.sqlName() + " WHERE " + table.tenantColumn() + " = ?")) {
						ps.setString(1, tenantId);
						rows += ps.executeUpdate();
					}
				}
				return rows;
			});
			shard.dialect().end(c);
			return deleted;
		});
	}

}
