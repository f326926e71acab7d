package io.github.shardtenancy.h2;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

import org.h2.api.Trigger;
import org.h2.engine.SessionLocal;

/**
 * The per-row write check of the H2 fence, installed on every tenant table
 * ({@code BEFORE INSERT, UPDATE, DELETE ... FOR EACH ROW}). A write is accepted only when the session was routed to
 * this shard for the row's tenant, the shard owns that tenant (not FROZEN, not moved away) and the route's version is
 * at or above the fence's minimum; a mover's session may write rows of the tenant it moves.
 *
 * <p>On an embedded H2 (the trigger runs in the JVM that opened the database, and H2's engine classes can be read)
 * the check runs no statement: it compares the written row's tenant with the session variables, finds the tenant's
 * fence lock that the transaction holds shared since its begin (or takes it, for a session bound by SQL alone; refused
 * with FROZEN while a freeze waits for it or holds it) and reads the latest committed fence row from H2's engine
 * ({@link H2TenantLocks}). A freeze takes that lock exclusive ({@link H2FenceDialect#lockTenant}), so it waits for
 * every transaction of the tenant in flight and every later write sees the freeze: a write racing a freeze either
 * commits before the freeze takes effect, or is rejected. Several writers of one tenant run at once.
 *
 * <p>Otherwise (and for a mover's session or a session bound to no tenant) the check reads the variables and locks
 * the session tenant's fence row ({@code SELECT ... FOR UPDATE}) until the transaction ends, in one statement per
 * write; {@link H2FenceDialect#lockTenant} selects that row {@code FOR UPDATE} too, so a freeze waits for those
 * writers as well. The shard's identity is read only when a rejection is built.
 *
 * <p>The same class is also installed as a statement trigger ({@code BEFORE UPDATE, DELETE}, no {@code FOR EACH ROW};
 * H2 then passes no rows): it checks the session tenant's fence as above, so an UPDATE or DELETE that matches no row
 * is rejected too. Without it, a transaction that began while the tenant was owned (or FROZEN: reads are accepted)
 * and updated a row after the move had flipped and cleaned the source would match 0 rows, fire no row trigger and
 * commit a lost update. A session without a tenant is left to the row check (rejected only if a row is matched); a
 * mover's session is not checked.
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
	 * The SQL path's check (H2's engine classes cannot be read, a session bound to no tenant, a mover's): the
	 * session's variables and, unless the session is a mover's, the session tenant's fence row as
	 * {@code 'STATE min_version'}, locked until the transaction ends, in one statement.
	 */
	private static final String CHECK = "SELECT @SHARD_TENANT, @SHARD_VERSION, @SHARD_ROLE, "
			+ "(SELECT state || ' ' || min_version FROM shard_fence WHERE tenant_id = @SHARD_TENANT "
			+ "AND @SHARD_ROLE IS NULL AND @SHARD_READ_ONLY IS NULL FOR UPDATE), @SHARD_READ_ONLY";

	@Override
	public void fire(Connection conn, Object[] oldRow, Object[] newRow) throws SQLException {
		SessionLocal session = H2FenceSession.session(conn);
		H2FenceSession.Variables vars = H2FenceSession.variables(session);
		if (vars != null && vars.readOnly()) {
			// A transaction declared read-only (H2 has no read-only transactions of its own): refused before any lock.
			throw H2Fence.readOnly(vars.tenant(), this.table);
		}
		if (vars != null && vars.tenant() != null && vars.role() == null
				&& checkedInProcess(conn, session, vars, oldRow, newRow)) {
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
			checkFence(conn, sessionTenant, version, parse(fence));
			return;
		}
		Object rowTenant = (newRow != null ? newRow : oldRow)[this.tenantColumn];
		if (sessionTenant == null) {
			throw H2Fence.reject(conn, String.valueOf(rowTenant), "NO_TENANT", -1, -1);
		}
		checkRows(conn, sessionTenant, version, oldRow, newRow);
		if ("mover".equals(role)) {
			return;
		}
		checkFence(conn, sessionTenant, version, parse(fence));
	}

	/**
	 * The check of a routed session on an embedded H2, without a statement: the written rows must be the session
	 * tenant's, the transaction must hold the tenant's fence lock (taken by the begin, or here if the session was
	 * bound by SQL alone; refused with FROZEN while a freeze waits for it or holds it), and the latest committed fence
	 * row must let the route write. While the lock is held, no change of the fence that takes it can commit.
	 * @return {@code false} if H2's engine classes cannot be read: the caller takes the SQL path
	 */
	private boolean checkedInProcess(Connection conn, SessionLocal session, H2FenceSession.Variables vars,
			Object[] oldRow, Object[] newRow) throws SQLException {
		String tenant = vars.tenant();
		long version = vars.version();
		checkRows(conn, tenant, version, oldRow, newRow);
		H2TenantLocks.Holder holder = H2TenantLocks.held(session, tenant, version);
		if (holder == null) {
			holder = H2TenantLocks.enterShared(session, tenant, version, true);
			if (holder == null) {
				throw H2Fence.reject(conn, tenant, "FROZEN", version, -1);
			}
		}
		H2Fence.Fence fence = H2TenantLocks.committedFence(session, holder.lock, -1);
		if (fence == null) {
			return false;
		}
		checkFence(conn, tenant, version, fence);
		return true;
	}

	/** Rejects a row of another tenant (on UPDATE, its old or its new tenant); a statement check has no rows. */
	private void checkRows(Connection conn, String sessionTenant, long version, Object[] oldRow, Object[] newRow)
			throws SQLException {
		if (oldRow == null && newRow == null) {
			return;
		}
		// A row whose tenant column is NULL belongs to no tenant, and so never to the session's.
		Object rowTenant = (newRow != null ? newRow : oldRow)[this.tenantColumn];
		if (!sessionTenant.equals(rowTenant) || (oldRow != null && !sessionTenant.equals(oldRow[this.tenantColumn]))) {
			throw H2Fence.reject(conn, sessionTenant, "FOREIGN_ROW", version, -1);
		}
	}

	/** Parses the SQL check's {@code 'STATE min_version'}, {@code null} when there is no row. */
	private static H2Fence.Fence parse(String fence) {
		if (fence == null) {
			return H2Fence.NONE;
		}
		int space = fence.indexOf(' ');
		return new H2Fence.Fence(fence.substring(0, space), Long.parseLong(fence.substring(space + 1)));
	}

	/** Rejects a write unless the fence row lets the route write: OWNED, at or above the minimum version. */
	private static void checkFence(Connection conn, String sessionTenant, long version, H2Fence.Fence fence)
			throws SQLException {
		String refusal = H2Fence.refusal(fence.state(), fence.minVersion(), version);
		if (refusal == null && "FROZEN".equals(fence.state())) {
			refusal = "FROZEN";
		}
		if (refusal != null) {
			throw H2Fence.reject(conn, sessionTenant, refusal, version, fence.minVersion());
		}
	}

	@Override
	public String toString() {
		return "H2FenceTrigger[" + this.table + "]";
	}

}
