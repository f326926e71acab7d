package io.github.shardtenancy.h2;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;

import org.h2.engine.SessionLocal;

/**
 * The shard fence for H2, run inside H2 as Java functions ({@code CREATE ALIAS}, installed by the shard changelog) and
 * a row trigger ({@link H2FenceTrigger}).
 *
 * <p>Session variables: {@code @SHARD_TENANT} (the routed tenant), {@code @SHARD_VERSION} (the directory version of
 * the route) and {@code @SHARD_ROLE} ({@code 'mover'} on a mover's connection). H2 variables belong to the session
 * and survive a rollback; they are cleared before a connection returns to its pool. The H2 dialect binds and clears
 * them in process on an embedded H2, else with one statement of its own each (the same rule as {@link #begin},
 * without the extra statement a {@code CALL} costs), and calls {@code SHARD_FENCE_BEGIN} only to raise a rejection;
 * the functions stay the reference implementation of the rule and the way to call the fence from SQL. A session bound
 * by {@code SHARD_FENCE_BEGIN} takes the tenant's fence lock ({@link H2TenantLocks}) at its first write.
 *
 * <p>Rejections are SQLSTATE 40001 with the message format of
 * {@code io.github.shardtenancy.retry.FenceRejection}, identical to the PostgreSQL fence.
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
		String refusal = refusal(fence.state, fence.minVersion, version);
		if (refusal != null) {
			throw reject(conn, tenant, refusal, version, fence.minVersion);
		}
		// One statement binds all three; a routed session is never a mover's, whatever an earlier borrower left.
		setVariables(conn, tenant, version, null);
	}

	/**
	 * {@code SHARD_FENCE_END()}: clears the variables, the read-only mark included.
	 * @param conn the calling session
	 * @throws SQLException on a database error
	 */
	public static void end(Connection conn) throws SQLException {
		setVariables(conn, null, null, null);
		try (PreparedStatement ps = conn.prepareStatement("SELECT SET(@SHARD_READ_ONLY, NULL)")) {
			ps.executeQuery().close();
		}
	}

	/**
	 * {@code SHARD_FENCE_MOVER(tenant)}: marks the session as the mover's for one tenant.
	 * @param conn the calling session
	 * @param tenant the tenant being moved
	 * @throws SQLException on a database error
	 */
	public static void mover(Connection conn, String tenant) throws SQLException {
		setVariables(conn, tenant, null, "mover");
	}

	/**
	 * {@code SHARD_FENCE_LOCK(tenant)}: takes the tenant's fence lock exclusive for the calling session's transaction
	 * in the JVM that runs the database ({@link H2FenceDialect#lockTenant} calls it when its connection reaches the
	 * database over TCP, so that a freeze, flip or change of capture waits for the tenant's writers there and the
	 * writers' holds see the change, as on an embedded H2).
	 * @param conn the calling session
	 * @param tenant the tenant whose fence changes
	 * @throws SQLException SQLSTATE {@code HYT00} when the session's lock timeout passes, or if the calling session is
	 * not one of this JVM's
	 */
	public static void lock(Connection conn, String tenant) throws SQLException {
		SessionLocal session = H2FenceSession.sessionOf(conn);
		if (session == null) {
			throw new SQLException("The fence lock of tenant '" + tenant + "' cannot be taken: the calling session is "
					+ "not one of this JVM's H2 sessions", "55000");
		}
		H2TenantLocks.lockExclusive(session, tenant);
	}

	/**
	 * How many sessions of the connection's database wait right now to take a tenant's fence lock exclusive
	 * ({@link H2FenceDialect#lockTenant}: a freeze, flip or change of capture waiting for the tenant's transactions
	 * in flight). The fence keeps these locks in the JVM that runs the database, so H2's
	 * {@code INFORMATION_SCHEMA.SESSIONS} does not show these waits.
	 * @param connection a connection to an H2 database running in this JVM
	 * @return the number of waiting sessions; 0 for a database in another JVM, whose waits are not known here
	 * @throws SQLException if the connection cannot be unwrapped
	 */
	public static int sessionsWaitingForFenceLock(Connection connection) throws SQLException {
		SessionLocal session = H2FenceSession.sessionOf(connection);
		return session != null ? H2TenantLocks.waiting(session) : 0;
	}

	private static void setVariables(Connection conn, String tenant, Long version, String role) throws SQLException {
		try (PreparedStatement ps = conn
			.prepareStatement("SELECT SET(@SHARD_TENANT, ?), SET(@SHARD_VERSION, ?), SET(@SHARD_ROLE, ?)")) {
			ps.setString(1, tenant);
			if (version != null) {
				ps.setLong(2, version);
			}
			else {
				ps.setNull(2, Types.BIGINT);
			}
			ps.setString(3, role);
			ps.executeQuery().close();
		}
	}

	/**
	 * The begin's rule: a route is accepted for an OWNED or FROZEN tenant at or above the minimum version.
	 * @param state the fence row's state, {@code null} if the shard has no row for the tenant
	 * @param minVersion the fence row's minimum directory version
	 * @param version the route's directory version
	 * @return the rejection's reason, or {@code null} if the route is accepted
	 */
	static String refusal(String state, long minVersion, long version) {
		if (state == null) {
			return "NOT_OWNED";
		}
		if (!(state.equals("OWNED") || state.equals("FROZEN"))) {
			return state;
		}
		return version < minVersion ? "STALE" : null;
	}

	/** A tenant's fence row as seen by one check; {@code state} is {@code null} when the shard has no row. */
	record Fence(String state, long minVersion) {
	}

	/** The fence of a tenant the shard has no row for. */
	static final Fence NONE = new Fence(null, -1);

	static Fence read(Connection conn, String tenant, boolean lock) throws SQLException {
		try (PreparedStatement ps = conn.prepareStatement(
				"SELECT state, min_version FROM shard_fence WHERE tenant_id = ?" + (lock ? " FOR UPDATE" : ""))) {
			ps.setString(1, tenant);
			try (ResultSet rs = ps.executeQuery()) {
				return rs.next() ? new Fence(rs.getString(1), rs.getLong(2)) : NONE;
			}
		}
	}

	/**
	 * Finds the 0-based index, in a trigger's row arrays, of a table's tenant column as registered in a registry table
	 * ({@code shard_fence_table} or {@code shard_capture_table}).
	 */
	static int tenantColumnIndex(Connection conn, String registry, String schemaName, String tableName)
			throws SQLException {
		String column;
		try (PreparedStatement ps = conn
			.prepareStatement("SELECT tenant_column FROM " + registry + " WHERE table_name = ?")) {
			ps.setString(1, tableName);
			try (ResultSet rs = ps.executeQuery()) {
				if (!rs.next()) {
					throw new SQLException("Table " + tableName + " is not registered in " + registry);
				}
				column = rs.getString(1);
			}
		}
		try (ResultSet rs = conn.getMetaData().getColumns(null, schemaName, tableName, column)) {
			if (!rs.next()) {
				throw new SQLException("Table " + tableName + " has no tenant column " + column);
			}
			return rs.getInt("ORDINAL_POSITION") - 1;
		}
	}

	/**
	 * The refusal of a write in a transaction declared read-only (session variable {@code @SHARD_READ_ONLY}): SQLSTATE
	 * {@code 25006}, as PostgreSQL refuses a write in a {@code READ ONLY} transaction, and without the fence's marker,
	 * so that it is not taken for a fence rejection and retried.
	 */
	static SQLException readOnly(String tenant, String table) {
		return new SQLException("cannot write table " + table + " in a read-only transaction (tenant "
				+ (tenant != null ? "'" + tenant + "'" : "none") + ")", "25006");
	}

	/** Builds a rejection; the shard's id is read only here, off the accepting path. */
	static SQLException reject(Connection conn, String tenant, String reason, long seen, long required)
			throws SQLException {
		String shard;
		try (PreparedStatement ps = conn.prepareStatement("SELECT shard_id FROM shard_fence_identity WHERE id = 1");
				ResultSet rs = ps.executeQuery()) {
			shard = rs.next() ? rs.getString(1) : "?";
		}
		return new SQLException("shard fence: tenant '" + tenant + "' rejected on shard '" + shard + "': " + reason
				+ " (directory version seen " + seen + ", required " + required + ")", SQLSTATE, 40001);
	}

}
