package io.github.shardtenancy.h2;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.TreeMap;

import org.h2.api.Trigger;
import org.h2.engine.SessionLocal;

/**
 * The change capture of the online mover for H2, installed per tenant table
 * ({@code AFTER INSERT, UPDATE, DELETE ... FOR EACH ROW}) by the H2 fence dialect's {@code installChangeCapture}.
 *
 * <p>When the written row's tenant is listed in {@code shard_capture} (a move of that tenant is copying it away from
 * this shard), the trigger appends the row's primary key to {@code shard_change} in the writing transaction, so the
 * entry commits or rolls back with the write. An UPDATE that changes the key logs the old and the new key. Writes of a
 * mover's session ({@code @SHARD_ROLE = 'mover'}) are not logged.
 *
 * <p>Keys are logged as text: a single-column key as its value, a composite key as its values joined with
 * {@link #KEY_SEPARATOR}, in primary key order. Capture is switched on and off only under the tenant's fence lock,
 * taken exclusive ({@link H2FenceDialect#lockTenant}), which waits for every transaction of the tenant in flight; a
 * writing transaction holds that lock shared from its begin, so a write either sees the capture or commits before the
 * mover's snapshot starts, and the answer cannot change while it runs. On an embedded H2 the answer is read without a
 * statement from the latest committed rows of {@code shard_capture} and remembered with the lock until it is next
 * taken exclusive ({@link H2TenantLocks}); elsewhere one statement reads it.
 */
public class H2CaptureTrigger implements Trigger {

	/** Separates the values of a composite key in {@code shard_change.row_key}. */
	public static final String KEY_SEPARATOR = "\u001f";

	private String table;

	private int tenantColumn = -1;

	private int[] keyColumns;

	@Override
	public void init(Connection conn, String schemaName, String triggerName, String tableName, boolean before,
			int type) throws SQLException {
		this.table = tableName;
		this.tenantColumn = H2Fence.tenantColumnIndex(conn, "shard_capture_table", schemaName, tableName);
		TreeMap<Integer, String> keyBySeq = new TreeMap<>();
		try (ResultSet rs = conn.getMetaData().getPrimaryKeys(null, schemaName, tableName)) {
			while (rs.next()) {
				keyBySeq.put(rs.getInt("KEY_SEQ"), rs.getString("COLUMN_NAME"));
			}
		}
		if (keyBySeq.isEmpty()) {
			throw new SQLException("Table " + tableName + " has no primary key; the mover's change capture needs one");
		}
		List<Integer> positions = new ArrayList<>();
		for (String key : keyBySeq.values()) {
			try (ResultSet rs = conn.getMetaData().getColumns(null, schemaName, tableName, key)) {
				rs.next();
				positions.add(rs.getInt("ORDINAL_POSITION") - 1);
			}
		}
		this.keyColumns = positions.stream().mapToInt(Integer::intValue).toArray();
	}

	@Override
	public void fire(Connection conn, Object[] oldRow, Object[] newRow) throws SQLException {
		Object[] row = (newRow != null) ? newRow : oldRow;
		String tenant = String.valueOf(row[this.tenantColumn]);
		Boolean captured = capturedInProcess(conn, tenant);
		if (captured == null) {
			try (PreparedStatement ps = conn.prepareStatement(
					"SELECT @SHARD_ROLE, (SELECT COUNT(*) FROM shard_capture WHERE tenant_id = ?)")) {
				ps.setString(1, tenant);
				try (ResultSet rs = ps.executeQuery()) {
					rs.next();
					if ("mover".equals(rs.getString(1))) {
						return;
					}
					captured = rs.getLong(2) > 0;
				}
			}
		}
		if (!captured) {
			return;
		}
		String newKey = (newRow != null) ? key(newRow) : null;
		String oldKey = (oldRow != null) ? key(oldRow) : null;
		log(conn, tenant, (newKey != null) ? newKey : oldKey);
		if (newKey != null && oldKey != null && !Objects.equals(newKey, oldKey)) {
			log(conn, tenant, oldKey);
		}
	}

	/**
	 * @return whether the tenant's writes are captured, read without a statement while the transaction holds the
	 * tenant's fence lock (capture is switched on and off only under that lock, exclusive), {@code false} for a
	 * mover's session, or {@code null} if not known that way
	 */
	private static Boolean capturedInProcess(Connection conn, String tenant) {
		SessionLocal session = H2FenceSession.session(conn);
		H2FenceSession.Variables vars = H2FenceSession.variables(session);
		if (vars == null) {
			return null;
		}
		if ("mover".equals(vars.role())) {
			return false;
		}
		H2TenantLocks.Holder holder = tenant.equals(vars.tenant()) && vars.role() == null
				? H2TenantLocks.held(session, tenant, vars.version()) : null;
		return holder != null ? H2TenantLocks.captured(session, holder.lock) : null;
	}

	private void log(Connection conn, String tenant, String key) throws SQLException {
		try (PreparedStatement ps = conn
			.prepareStatement("INSERT INTO shard_change (tenant_id, table_name, row_key) VALUES (?, ?, ?)")) {
			ps.setString(1, tenant);
			ps.setString(2, this.table);
			ps.setString(3, key);
			ps.executeUpdate();
		}
	}

	private String key(Object[] row) {
		StringBuilder key = new StringBuilder();
		for (int i = 0; i < this.keyColumns.length; i++) {
			if (i > 0) {
				key.append(KEY_SEPARATOR);
			}
			key.append(row[this.keyColumns[i]]);
		}
		return key.toString();
	}

	@Override
	public String toString() {
		return "H2CaptureTrigger[" + this.table + "]";
	}

}
