package io.github.shardtenancy.internal.move;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

import io.github.shardtenancy.internal.topology.Topology;

import static io.github.shardtenancy.internal.move.MoveSql.inTransaction;

/**
 * The change capture of the online move on the source shard: switched on for a tenant (its writes then log their
 * rows' keys in {@code shard_change}, see {@link io.github.shardtenancy.spi.FenceDialect#installChangeCapture}),
 * switched off, and the lag of the log. Stateless; thread-safe.
 */
public final class ChangeCapture {

	private ChangeCapture() {
	}

	/**
	 * Installs the capture triggers and lists the tenant in {@code shard_capture}, in a transaction that first takes
	 * the tenant's fence lock ({@link io.github.shardtenancy.spi.FenceDialect#lockTenant}): it waits for the tenant's
	 * transactions in flight, so every transaction of the tenant that commits afterwards began after the capture was
	 * on, and its writes are logged.
	 * @param shard the source shard
	 * @param tenantId the tenant
	 * @param moveId the move, recorded with the capture
	 * @param tables the tables
	 * @throws SQLException on a database error (unsupported capture included)
	 */
	public static void captureOn(Topology.Shard shard, String tenantId, String moveId, List<TablePlan> tables)
			throws SQLException {
		try (Connection c = shard.dataSource().getConnection()) {
			c.setAutoCommit(true);
			for (TablePlan table : tables) {
				shard.dialect().installChangeCapture(c, table.sqlName(), table.tenantColumn());
			}
			inTransaction(c, () -> {
				shard.dialect().lockTenant(c, tenantId);
				boolean present;
				try (PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM shard_capture WHERE tenant_id = ?")) {
					ps.setString(1, tenantId);
					try (ResultSet rs = ps.executeQuery()) {
						rs.next();
						present = rs.getLong(1) > 0;
					}
				}
				if (!present) {
					try (PreparedStatement ps = c.prepareStatement(
							"INSERT INTO shard_capture (tenant_id, move_id, since) VALUES (?, ?, CURRENT_TIMESTAMP)")) {
						ps.setString(1, tenantId);
						ps.setString(2, moveId);
						ps.executeUpdate();
					}
				}
				// Touched, so that a REPEATABLE READ transaction whose snapshot predates this change and which begins
				// after it fails to lock the row at begin (a serialization failure) instead of missing the change.
				try (PreparedStatement ps = c
					.prepareStatement("UPDATE shard_fence SET updated_at = CURRENT_TIMESTAMP WHERE tenant_id = ?")) {
					ps.setString(1, tenantId);
					ps.executeUpdate();
				}
				return null;
			});
		}
	}

	/**
	 * Stops capturing the tenant's writes on a shard and drops its change log. It first takes the tenant's fence lock
	 * ({@link io.github.shardtenancy.spi.FenceDialect#lockTenant}): so the tenant's transactions in flight finish (and
	 * their change-log entries are dropped with the rest) and later ones see capture off. Without the lock, an entry
	 * written by a transaction that commits after the delete would outlive the move. It touches the fence row too, as
	 * {@link #captureOn} does.
	 * @param shard the source shard
	 * @param tenantId the tenant
	 * @throws SQLException on a database error
	 */
	public static void captureOff(Topology.Shard shard, String tenantId) throws SQLException {
		try (Connection c = shard.dataSource().getConnection()) {
			inTransaction(c, () -> {
				shard.dialect().lockTenant(c, tenantId);
				for (String sql : List.of("UPDATE shard_fence SET updated_at = CURRENT_TIMESTAMP WHERE tenant_id = ?",
						"DELETE FROM shard_capture WHERE tenant_id = ?", "DELETE FROM shard_change WHERE tenant_id = ?")) {
					try (PreparedStatement ps = c.prepareStatement(sql)) {
						ps.setString(1, tenantId);
						ps.execute();
					}
				}
				return null;
			});
		}
	}

	/**
	 * @param shard the source shard
	 * @param tenantId the tenant
	 * @return the change-log entries of the tenant not yet applied
	 * @throws SQLException on a database error
	 */
	public static long lag(Topology.Shard shard, String tenantId) throws SQLException {
		try (Connection c = shard.dataSource().getConnection();
				PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM shard_change WHERE tenant_id = ?")) {
			ps.setString(1, tenantId);
			try (ResultSet rs = ps.executeQuery()) {
				rs.next();
				return rs.getLong(1);
			}
		}
	}

}
