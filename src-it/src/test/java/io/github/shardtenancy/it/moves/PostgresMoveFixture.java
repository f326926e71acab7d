package io.github.shardtenancy.it.moves;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;

import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.TenantTable;
import io.github.shardtenancy.internal.move.Mover;
import io.github.shardtenancy.internal.topology.Topology;
import io.github.shardtenancy.it.support.AppInstance;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import io.github.shardtenancy.testing.TenantWriter;
import io.github.shardtenancy.testing.pg.PostgresCluster;

/**
 * The online mover's domain on the shared PostgreSQL cluster ({@code db/it-pg/pg-move.xml}: orders and their lines,
 * with a foreign key, plus a table without a tenant column), migrated once per test JVM with the fence's write check
 * and the mover's change capture installed with the schema; and raw reads of a shard (no fence, no routing) to compare
 * with what the writers saw committed.
 */
final class PostgresMoveFixture {

	/** The tenant tables, child first (the mover sorts them by foreign key). */
	static final List<TenantTable> TABLES = List.of(new TenantTable("pg_move_line", "tenant_id"),
			new TenantTable("pg_move_order", "tenant_id"));

	private static boolean migrated;

	private PostgresMoveFixture() {
	}

	/** @return the shared cluster, with the mover's tables migrated on every shard */
	static synchronized PostgresCluster cluster() {
		PostgresCluster cluster = PostgresCluster.shared();
		if (!migrated) {
			for (String shardId : PostgresCluster.SHARD_IDS) {
				try (HikariDataSource ds = cluster.pool(cluster.shard(shardId), 2, "it-move-migrate-" + shardId);
						Topology topology = new Topology()) {
					ShardTenancyMigrations.migrateShard(ds, shardId, List.of("db/it-pg/pg-move.xml"));
					Topology.Shard shard = topology.addShard(shardId, (javax.sql.DataSource) ds);
					try (Connection c = ds.getConnection()) {
						for (TenantTable table : TABLES) {
							shard.dialect().installWriteCheck(c, table.table(), table.tenantColumn());
							shard.dialect().installChangeCapture(c, table.table(), table.tenantColumn());
						}
					}
				}
				catch (SQLException ex) {
					throw new IllegalStateException("Cannot install the fence and capture on " + shardId, ex);
				}
			}
			migrated = true;
		}
		return cluster;
	}

	/**
	 * @return a writer of the tenant on the move tables through the instance's tenant-routing DataSource; a fence
	 * rejection drops the tenant's route on the instance's router
	 */
	static TenantWriter writer(AppInstance app, String tenantId, AtomicBoolean stop) {
		return new TenantWriter(tenantId, new TenantWriter.Tables("pg_move_order", "pg_move_line"),
				(tenant, work) -> app.inTransaction(tenant, c -> {
					work.run(c);
					return null;
				}), app.router::invalidate, stop);
	}

	/** @return an online mover over the test tables on an instance, acting as {@code online@<instance>} */
	static Mover mover(AppInstance app) {
		return new Mover(app.directory, app.router, app.topology, TABLES, "online@" + app.name, app.moveExecutor);
	}

	/** @return the tenant's orders on a shard, id to amount */
	static Map<Long, Integer> orders(AppInstance app, String shardId, String tenantId) {
		Map<Long, Integer> orders = new TreeMap<>();
		query(app, shardId, "SELECT id, amount FROM pg_move_order WHERE tenant_id = ?", tenantId,
				rs -> orders.put(rs.getLong(1), rs.getInt(2)));
		return orders;
	}

	/** @return the tenant's order lines on a shard, id to "order:qty" */
	static Map<String, String> lines(AppInstance app, String shardId, String tenantId) {
		Map<String, String> lines = new TreeMap<>();
		query(app, shardId, "SELECT id, order_id, qty FROM pg_move_line WHERE tenant_id = ?", tenantId,
				rs -> lines.put(rs.getString(1), rs.getLong(2) + ":" + rs.getInt(3)));
		return lines;
	}

	/** @return the tenant's rows in both tables on a shard */
	static long rows(AppInstance app, String shardId, String tenantId) {
		return orders(app, shardId, tenantId).size() + lines(app, shardId, tenantId).size();
	}

	/** @return the tenant's entries in a shard's change log, and whether it is still listed for capture */
	static long changeLog(AppInstance app, String shardId, String tenantId) {
		long[] count = new long[1];
		query(app, shardId, "SELECT COUNT(*) FROM shard_change WHERE tenant_id = ?", tenantId,
				rs -> count[0] += rs.getLong(1));
		query(app, shardId, "SELECT COUNT(*) FROM shard_capture WHERE tenant_id = ?", tenantId,
				rs -> count[0] += rs.getLong(1));
		return count[0];
	}

	@FunctionalInterface
	interface RowConsumer {

		void accept(ResultSet rs) throws SQLException;

	}

	private static void query(AppInstance app, String shardId, String sql, String tenantId, RowConsumer consumer) {
		try (Connection c = app.topology.shard(shardId).dataSource().getConnection();
				PreparedStatement ps = c.prepareStatement(sql)) {
			ps.setString(1, tenantId);
			try (ResultSet rs = ps.executeQuery()) {
				while (rs.next()) {
					consumer.accept(rs);
				}
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Cannot read shard " + shardId + ": " + ex.getMessage(), ex);
		}
	}

}
