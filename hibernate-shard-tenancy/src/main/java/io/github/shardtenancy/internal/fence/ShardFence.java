package io.github.shardtenancy.internal.fence;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;

import javax.sql.DataSource;

import io.github.shardtenancy.ShardTenancyException;
import io.github.shardtenancy.internal.topology.Topology;
import io.github.shardtenancy.spi.FenceDialect;

/**
 * Reads and writes one shard's fence table ({@code shard_fence}): which tenants the shard owns, in which
 * {@link FenceState}, and the minimum directory version it accepts for each. Only the library's placement and move
 * code writes it; the shard's own checks read it, so the source refuses the tenant's writes from the moment of the
 * freeze whatever a router believes.
 *
 * <p>Writing a tenant's fence row first takes the tenant's fence lock ({@link FenceDialect#lockTenant}), which every
 * transaction of the tenant holds in a shared mode from its begin until it ends, so {@link #set} waits for the
 * tenant's transactions in flight on that shard: after it returns, no write that the new state forbids can commit.
 *
 * <p>Thread-safe; each call uses its own connection.
 */
public final class ShardFence {

	private ShardFence() {
	}

	/**
	 * A tenant's row in a shard's fence.
	 * @param state the state
	 * @param minVersion the minimum directory version accepted
	 */
	public record Row(FenceState state, long minVersion) {
	}

	/**
	 * Sets a tenant's fence row on a shard, creating it if missing, in a transaction that first takes the tenant's
	 * fence lock ({@link FenceDialect#lockTenant}): it waits for the tenant's transactions in flight on the shard, and
	 * after it returns no transaction that the new state forbids can commit.
	 * @param shard the shard
	 * @param tenantId the tenant
	 * @param state the new state
	 * @param minVersion the minimum directory version to accept from now on
	 * @throws ShardTenancyException if the shard cannot be written
	 */
	public static void set(Topology.Shard shard, String tenantId, FenceState state, long minVersion) {
		set(shard.dataSource(), shard.dialect(), shard.id(), tenantId, state, minVersion);
	}

	/**
	 * As {@link #set(Topology.Shard, String, FenceState, long)}, for a pool outside a topology; the shard's dialect is
	 * found as the topology finds it ({@link Topology#dialectOf}).
	 * @param shard a pool on the shard
	 * @param shardId the shard's id, for error messages
	 * @param tenantId the tenant
	 * @param state the new state
	 * @param minVersion the minimum directory version to accept from now on
	 * @throws ShardTenancyException if the shard cannot be written (a
	 * {@link io.github.shardtenancy.ShardTenancyConfigurationException} if no dialect supports its database)
	 */
	public static void set(DataSource shard, String shardId, String tenantId, FenceState state, long minVersion) {
		set(shard, Topology.dialectOf(shardId, shard), shardId, tenantId, state, minVersion);
	}

	private static void set(DataSource shard, FenceDialect dialect, String shardId, String tenantId, FenceState state,
			long minVersion) {
		try (Connection c = shard.getConnection()) {
			c.setAutoCommit(false);
			try {
				dialect.lockTenant(c, tenantId);
				write(c, tenantId, state, minVersion);
				c.commit();
			}
			catch (SQLException | RuntimeException ex) {
				c.rollback();
				throw ex;
			}
			finally {
				c.setAutoCommit(true);
			}
		}
		catch (SQLException ex) {
			throw new ShardTenancyException("Cannot set the fence of tenant '" + tenantId + "' on shard '" + shardId
					+ "' to " + state + " at directory version " + minVersion + ": " + ex.getMessage(), tenantId,
					shardId, minVersion, ex);
		}
	}

	/** An UPDATE of the tenant's row, else an INSERT. */
	private static void write(Connection c, String tenantId, FenceState state, long minVersion) throws SQLException {
		try (PreparedStatement update = c.prepareStatement(
				"UPDATE shard_fence SET state = ?, min_version = ?, updated_at = CURRENT_TIMESTAMP WHERE tenant_id = ?")) {
			update.setString(1, state.name());
			update.setLong(2, minVersion);
			update.setString(3, tenantId);
			if (update.executeUpdate() == 1) {
				return;
			}
		}
		try (PreparedStatement insert = c.prepareStatement("INSERT INTO shard_fence (tenant_id, state, "
				+ "min_version, updated_at) VALUES (?, ?, ?, CURRENT_TIMESTAMP)")) {
			insert.setString(1, tenantId);
			insert.setString(2, state.name());
			insert.setLong(3, minVersion);
			insert.executeUpdate();
		}
	}

	/**
	 * Reads a tenant's fence row on a shard.
	 * @param shard a pool on the shard
	 * @param shardId the shard's id, for error messages
	 * @param tenantId the tenant
	 * @return the row, or empty if the shard has never known the tenant
	 * @throws ShardTenancyException if the shard cannot be read
	 */
	public static Optional<Row> get(DataSource shard, String shardId, String tenantId) {
		try (Connection c = shard.getConnection();
				PreparedStatement ps = c
					.prepareStatement("SELECT state, min_version FROM shard_fence WHERE tenant_id = ?")) {
			ps.setString(1, tenantId);
			try (ResultSet rs = ps.executeQuery()) {
				return rs.next() ? Optional.of(new Row(FenceState.valueOf(rs.getString(1)), rs.getLong(2)))
						: Optional.empty();
			}
		}
		catch (SQLException ex) {
			throw new ShardTenancyException("Cannot read the fence of tenant '" + tenantId + "' on shard '" + shardId
					+ "': " + ex.getMessage(), tenantId, shardId, -1, ex);
		}
	}

}
