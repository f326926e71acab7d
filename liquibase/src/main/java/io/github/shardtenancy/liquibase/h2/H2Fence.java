package io.github.shardtenancy.liquibase.h2;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The shard fence for H2, run inside H2 as Java functions ({@code CREATE ALIAS}, installed by the shard changelog) and
 * a row trigger ({@link H2FenceTrigger}).
 *
 * <p>Session variables: {@code @SHARD_TENANT} (the routed tenant), {@code @SHARD_VERSION} (the directory version of
 * the route) and {@code @SHARD_ROLE} ({@code 'mover'} on a mover's connection). H2 variables belong to the session
 * and survive a rollback; the connection provider clears them with {@link #end} before a connection returns to its
 * pool.
 *
 * <p>Rejections are SQLSTATE 40001 with the message format of
 * {@code io.github.shardtenancy.fence.FenceRejection}, identical to the PostgreSQL fence.
 */
public final class H2Fence {

	static final String SQLSTATE = "40001";

	private H2Fence() {
	}

	/**
	 * {@code SHARD_FENCE_BEGIN(tenant, version)}: rejects a route the shard does not accept, then binds the variables.
	 * Reads are accepted for an OWNED or FROZEN tenant at or above the minimum version.
	 * @param conn the calling session
	 * @param tenant the routed tenant
	 * @param version the directory version of the route
	 * @throws SQLException with SQLSTATE 40001 if the route is refused
	 */
	public static void begin(Connection conn, String tenant, long version) throws SQLException {
		Fence fence = read(conn, tenant, false);
		if (fence.state == null || !(fence.state.equals("OWNED") || fence.state.equals("FROZEN"))) {
			throw reject(tenant, fence.shard, fence.state == null ? "NOT_OWNED" : fence.state, version,
					fence.minVersion);
		}
		if (version < fence.minVersion) {
			throw reject(tenant, fence.shard, "STALE", version, fence.minVersion);
		}
		try (PreparedStatement ps = conn.prepareStatement("SET @SHARD_TENANT = ?")) {
			ps.setString(1, tenant);
			ps.execute();
		}
		try (PreparedStatement ps = conn.prepareStatement("SET @SHARD_VERSION = ?")) {
			ps.setLong(1, version);
			ps.execute();
		}
		// A routed session is never a mover's, whatever an earlier borrower of this connection left behind.
		try (PreparedStatement ps = conn.prepareStatement("SET @SHARD_ROLE = NULL")) {
			ps.execute();
		}
	}

	/**
	 * {@code SHARD_FENCE_END()}: clears the variables.
	 * @param conn the calling session
	 * @throws SQLException on a database error
	 */
	public static void end(Connection conn) throws SQLException {
		try (PreparedStatement ps = conn.prepareStatement("SET @SHARD_TENANT = NULL")) {
			ps.execute();
		}
		try (PreparedStatement ps = conn.prepareStatement("SET @SHARD_VERSION = NULL")) {
			ps.execute();
		}
		try (PreparedStatement ps = conn.prepareStatement("SET @SHARD_ROLE = NULL")) {
			ps.execute();
		}
	}

	/**
	 * {@code SHARD_FENCE_MOVER(tenant)}: marks the session as the mover's for one tenant.
	 * @param conn the calling session
	 * @param tenant the tenant being moved
	 * @throws SQLException on a database error
	 */
	public static void mover(Connection conn, String tenant) throws SQLException {
		try (PreparedStatement ps = conn.prepareStatement("SET @SHARD_TENANT = ?")) {
			ps.setString(1, tenant);
			ps.execute();
		}
		try (PreparedStatement ps = conn.prepareStatement("SET @SHARD_ROLE = 'mover'")) {
			ps.execute();
		}
	}

	/** A tenant's fence row as seen by one check; {@code state} is {@code null} when the shard has no row. */
	record Fence(String shard, String state, long minVersion) {
	}

	static Fence read(Connection conn, String tenant, boolean lock) throws SQLException {
		String shard;
		try (PreparedStatement ps = conn.prepareStatement("SELECT shard_id FROM shard_fence_identity WHERE id = 1");
				ResultSet rs = ps.executeQuery()) {
			shard = rs.next() ? rs.getString(1) : "?";
		}
		try (PreparedStatement ps = conn.prepareStatement(
				"SELECT state, min_version FROM shard_fence WHERE tenant_id = ?" + (lock ? " FOR UPDATE" : ""))) {
			ps.setString(1, tenant);
			try (ResultSet rs = ps.executeQuery()) {
				return rs.next() ? new Fence(shard, rs.getString(1), rs.getLong(2)) : new Fence(shard, null, -1);
			}
		}
	}

	static SQLException reject(String tenant, String shard, String reason, long seen, long required) {
		return new SQLException("shard fence: tenant '" + tenant + "' rejected on shard '" + shard + "': " + reason
				+ " (directory version seen " + seen + ", required " + required + ")", SQLSTATE, 40001);
	}

}
