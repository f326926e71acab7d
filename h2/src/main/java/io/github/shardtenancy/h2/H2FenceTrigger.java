package io.github.shardtenancy.h2;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

import org.h2.api.Trigger;

/**
 * The per-row write check of the H2 fence, installed on every tenant table
 * ({@code BEFORE INSERT, UPDATE, DELETE ... FOR EACH ROW}). A write is accepted only when the session was routed to
 * this shard for the row's tenant, the shard owns that tenant (not FROZEN, not moved away) and the route's version is
 * at or above the fence's minimum; a mover's session may write rows of the tenant it moves.
 *
 * <p>The check locks the tenant's fence row ({@code SELECT ... FOR UPDATE}) until the writing transaction ends, so a
 * freeze (an update of that row) waits for the writes in flight and every later write sees the freeze: a write racing
 * a freeze either commits before the freeze takes effect, or is rejected. The variables and the locked fence row are
 * read in one statement; the shard's identity only when a rejection is built. That statement runs once per
 * transaction: a later write of the same transaction, for the same tenant and version, whose fence row lock H2 shows
 * still held by the transaction, is accepted after comparing the row's tenant with the session variables read straight
 * from the H2 session ({@link H2FenceSession}; a rollback past the lock takes the statement again).
 *
 * <p>The same class is also installed as a statement trigger ({@code BEFORE UPDATE, DELETE}, no {@code FOR EACH ROW};
 * H2 then passes no rows): it checks, and locks, the session tenant's fence row (unless the transaction holds that
 * lock already), so an UPDATE or
 * DELETE that matches no row is rejected too. Without it, a transaction that began while the tenant was owned (or
 * FROZEN: reads are accepted) and updated a row after the move had flipped and cleaned the source would match 0 rows,
 * fire no row trigger and commit a lost update. The lock matters as much as the state read: a statement checked
 * before a freeze keeps the freeze (an update of the fence row), and so the copy, flip and clean, waiting until its
 * transaction ends; one checked after the freeze reads FROZEN or MOVED and is rejected. A session without a tenant is
 * left to the row check (rejected only if a row is matched); a mover's session is not checked.
 *
 * <p>A session whose transaction was declared read-only ({@code @SHARD_READ_ONLY}, set by the connection provider for
 * {@code @Transactional(readOnly = true)}, since H2 has no read-only transactions) has every write refused, before
 * any lock is taken, with SQLSTATE {@code 25006} as PostgreSQL would.
 */
public class H2FenceTrigger implements Trigger {

	private int tenantColumn = -1;

	private String table;

	@Override
	public void init(Connection conn, String schemaName, String triggerName, String tableName, boolean before,
			int type) throws SQLException {
		this.table = tableName;
		this.tenantColumn = H2Fence.tenantColumnIndex(conn, "shard_fence_table", schemaName, tableName);
	}

	/**
	 * The session's variables and, unless the session is a mover's, the session tenant's fence row as
	 * {@code 'STATE min_version _ROWID_'}, locked until the transaction ends: one statement, run by the first write
	 * check of a transaction (and again whenever the lock may have been released, see {@link H2FenceSession}).
	 */
	private static final String CHECK = "SELECT @SHARD_TENANT, @SHARD_VERSION, @SHARD_ROLE, "
			+ "(SELECT state || ' ' || min_version || ' ' || _ROWID_ FROM shard_fence WHERE tenant_id = @SHARD_TENANT "
			+ "AND @SHARD_ROLE IS NULL AND @SHARD_READ_ONLY IS NULL FOR UPDATE), @SHARD_READ_ONLY";

	@Override
	public void fire(Connection conn, Object[] oldRow, Object[] newRow) throws SQLException {
		H2FenceSession.Variables vars = H2FenceSession.variables(conn);
		if (vars != null && vars.readOnly()) {
			// A transaction declared read-only (H2 has no read-only transactions of its own): refused before any lock.
			throw H2Fence.readOnly(vars.tenant(), this.table);
		}
		if (acceptedWithoutStatement(conn, vars, oldRow, newRow)) {
			return;
		}
		String sessionTenant;
		long version;
		String role;
		String fence;
		try (PreparedStatement ps = conn.prepareStatement(CHECK); ResultSet rs = ps.executeQuery()) {
			rs.next();
			sessionTenant = rs.getString(1);
			version = rs.getObject(2) != null ? rs.getLong(2) : -1;
			role = rs.getString(3);
			fence = rs.getString(4);
			if (Boolean.TRUE.equals(rs.getObject(5, Boolean.class))) {
				throw H2Fence.readOnly(sessionTenant, this.table);
			}
		}
		if (oldRow == null && newRow == null) {
			// The statement check: no row to compare, only the session tenant's fence row.
			if (sessionTenant == null || "mover".equals(role)) {
				return;
			}
			checkFence(conn, sessionTenant, version, fence);
			return;
		}
		Object rowTenant = (newRow != null ? newRow : oldRow)[this.tenantColumn];
		if (sessionTenant == null) {
			throw H2Fence.reject(conn, String.valueOf(rowTenant), "NO_TENANT", -1, -1);
		}
		// A row whose tenant column is NULL belongs to no tenant, and so never to the session's.
		if (!sessionTenant.equals(rowTenant) || (oldRow != null && !sessionTenant.equals(oldRow[this.tenantColumn]))) {
			throw H2Fence.reject(conn, sessionTenant, "FOREIGN_ROW", version, -1);
		}
		if ("mover".equals(role)) {
			return;
		}
		checkFence(conn, sessionTenant, version, fence);
	}

	/**
	 * The fast path: a routed write of the session tenant's own row in a transaction that already locked the
	 * tenant's fence row for the same tenant and version, and still holds that lock (so the row cannot have changed
	 * since it was checked: a freeze or a flip is an update of that row and waits for this transaction). Anything
	 * else, including every rejection, takes the statement path.
	 */
	private boolean acceptedWithoutStatement(Connection conn, H2FenceSession.Variables vars, Object[] oldRow,
			Object[] newRow) {
		if (vars == null || vars.tenant() == null || vars.role() != null) {
			return false;
		}
		if (oldRow != null || newRow != null) {
			Object rowTenant = (newRow != null ? newRow : oldRow)[this.tenantColumn];
			if (!vars.tenant().equals(rowTenant)
					|| (oldRow != null && !vars.tenant().equals(oldRow[this.tenantColumn]))) {
				return false;
			}
		}
		return H2FenceSession.holdsLock(conn, vars.tenant(), vars.version());
	}

	/**
	 * Rejects a write unless the fence row ({@code 'STATE min_version _ROWID_'}, or {@code null}) lets the route
	 * write; an accepted check is remembered for the rest of the transaction ({@link H2FenceSession}).
	 */
	private static void checkFence(Connection conn, String sessionTenant, long version, String fence)
			throws SQLException {
		if (fence == null) {
			throw H2Fence.reject(conn, sessionTenant, "NOT_OWNED", version, -1);
		}
		int space = fence.indexOf(' ');
		int lastSpace = fence.lastIndexOf(' ');
		String state = fence.substring(0, space);
		long minVersion = Long.parseLong(fence.substring(space + 1, lastSpace));
		if (!(state.equals("OWNED") || state.equals("FROZEN"))) {
			throw H2Fence.reject(conn, sessionTenant, state, version, minVersion);
		}
		if (state.equals("FROZEN")) {
			throw H2Fence.reject(conn, sessionTenant, "FROZEN", version, minVersion);
		}
		if (version < minVersion) {
			throw H2Fence.reject(conn, sessionTenant, "STALE", version, minVersion);
		}
		H2FenceSession.lockTaken(conn, sessionTenant, version, Long.parseLong(fence.substring(lastSpace + 1)));
	}

	@Override
	public String toString() {
		return "H2FenceTrigger[" + this.table + "]";
	}

}
