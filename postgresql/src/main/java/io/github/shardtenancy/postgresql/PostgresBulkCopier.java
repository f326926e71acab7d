package io.github.shardtenancy.postgresql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.github.shardtenancy.spi.BulkCopier;
import io.github.shardtenancy.spi.DialectSql;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;
import org.postgresql.copy.CopyManager;
import org.postgresql.copy.CopyOut;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The online mover's bulk copy between two PostgreSQL shards with {@code COPY}: {@code COPY (SELECT ...) TO STDOUT}
 * on the source, in the mover's snapshot, streamed row by row (text format, never buffered whole) into
 * {@code COPY table (columns) FROM STDIN} on the target, one {@code COPY} per batch so that each batch commits on its
 * own.
 *
 * <p>Where the target's role may set {@code session_replication_role} (a superuser, or on PostgreSQL 15+ a role granted
 * {@code SET ON PARAMETER session_replication_role}) and the target table's only triggers are the fence's row trigger
 * and foreign keys' (no rule, no trigger of the application), each batch's {@code COPY} runs with
 * {@code session_replication_role = replica}, set for the batch's transaction only
 * (https://www.postgresql.org/docs/current/runtime-config-client.html#GUC-SESSION-REPLICATION-ROLE): the fence's row
 * trigger, which would accept every row of the copy anyway (the rows are the moving tenant's, read by the copy's
 * {@code SELECT}), and the foreign keys' per-row checks do not fire. The foreign keys are then checked once per table
 * after its last batch (the referenced rows locked {@code FOR KEY SHARE} as the keys' own check locks them, then the
 * copied rows without a referenced row counted); a missing one fails the copy with SQLState 23503 as the key's own
 * check would. Otherwise the row triggers fire for every row (the fence's and the change capture's accept the mover's
 * rows on their first line; foreign keys are checked as usual). Which of the two is used is logged at INFO, once per
 * table and copy. Registered for {@link java.util.ServiceLoader}. Stateless; thread-safe.
 */
public final class PostgresBulkCopier implements BulkCopier {

	private static final Logger log = LoggerFactory.getLogger(PostgresBulkCopier.class);

	private static final String PRIVILEGE = DialectSql.load(PostgresBulkCopier.class, "copy-replica-privilege");

	private static final String PRIVILEGE_BEFORE_15 = DialectSql.load(PostgresBulkCopier.class,
			"copy-replica-privilege-before-15");

	private static final String REFUSAL = DialectSql.load(PostgresBulkCopier.class, "copy-replica-refusal");

	private static final String REPLICA_ON = DialectSql.load(PostgresBulkCopier.class, "copy-replica-on");

	private static final String FOREIGN_KEYS = DialectSql.load(PostgresBulkCopier.class, "copy-foreign-keys");

	private static final String LOCK_PARENTS = DialectSql.load(PostgresBulkCopier.class, "copy-lock-parents");

	private static final String MISSING_PARENTS = DialectSql.load(PostgresBulkCopier.class, "copy-missing-parents");

	/**
	 * Whether both are PostgreSQL connections and row-level security is not active on the target's tenant tables for
	 * its role: PostgreSQL refuses {@code COPY FROM} into a table whose row-level security applies to the role
	 * (https://www.postgresql.org/docs/current/sql-copy.html), so the mover then writes with multi-row INSERTs.
	 */
	@Override
	public boolean supports(Connection source, Connection target) throws SQLException {
		return source.isWrapperFor(PGConnection.class) && target.isWrapperFor(PGConnection.class)
				&& !rowSecurityActive(target);
	}

	private static boolean rowSecurityActive(Connection target) throws SQLException {
		try (PreparedStatement ps = target.prepareStatement("SELECT EXISTS (SELECT 1 FROM shard_fence_table "
				+ "WHERE row_security_active(to_regclass(table_name)))"); ResultSet rs = ps.executeQuery()) {
			return rs.next() && rs.getBoolean(1);
		}
	}

	/**
	 * @param target a connection to the target shard, in a transaction
	 * @param table the target table
	 * @return why the copy into the table must let the target's row triggers fire, or {@code null} if it may run with
	 * {@code session_replication_role = replica}
	 * @throws SQLException on a database error
	 */
	static String replicaRefusal(Connection target, String table) throws SQLException {
		boolean since15 = target.getMetaData().getDatabaseMajorVersion() >= 15;
		try (PreparedStatement ps = target.prepareStatement(since15 ? PRIVILEGE : PRIVILEGE_BEFORE_15);
				ResultSet rs = ps.executeQuery()) {
			if (!rs.next() || !rs.getBoolean(1)) {
				return "the role " + target.getMetaData().getUserName() + " may not set session_replication_role ("
						+ (since15 ? "GRANT SET ON PARAMETER session_replication_role TO the role, or use a superuser"
								: "only a superuser may before PostgreSQL 15")
						+ ")";
			}
		}
		try (PreparedStatement ps = target.prepareStatement(REFUSAL)) {
			ps.setString(1, table);
			try (ResultSet rs = ps.executeQuery()) {
				return rs.next() ? rs.getString(1) : "the table was not found";
			}
		}
	}

	@Override
	public long copy(Connection source, String select, Connection target, String table, String columnList,
			int batchSize, BatchWritten batchWritten) throws SQLException {
		String refusal = replicaRefusal(target, table);
		boolean replica = refusal == null;
		if (replica) {
			log.info("Copying into {} with session_replication_role = replica (row triggers off for the copy's "
					+ "transactions, foreign keys checked after the copy)", table);
		}
		else {
			log.info("Copying into {} with the target's row triggers firing for every row: {}", table, refusal);
		}
		long rows = copyRows(source, select, target, table, columnList, batchSize, batchWritten, replica);
		if (replica && rows > 0) {
			checkForeignKeys(target, select, table);
		}
		return rows;
	}

	private static long copyRows(Connection source, String select, Connection target, String table,
			String columnList, int batchSize, BatchWritten batchWritten, boolean replica) throws SQLException {
		CopyManager from = source.unwrap(PGConnection.class).getCopyAPI();
		CopyManager to = target.unwrap(PGConnection.class).getCopyAPI();
		String copyIn = "COPY " + table + " (" + columnList + ") FROM STDIN";
		CopyOut out = from.copyOut("COPY (" + select + ") TO STDOUT");
		CopyIn in = null;
		long rows = 0;
		try {
			int inBatch = 0;
			byte[] row;
			while ((row = out.readFromCopy()) != null) {
				if (in == null) {
					if (replica) {
						// Each batch is a transaction of its own (batchWritten commits it), so the setting is made
						// again for each; it ends with the transaction.
						try (PreparedStatement ps = target.prepareStatement(REPLICA_ON)) {
							ps.execute();
						}
					}
					in = to.copyIn(copyIn);
				}
				in.writeToCopy(row, 0, row.length);
				rows++;
				if (++inBatch == batchSize) {
					in.endCopy();
					in = null;
					inBatch = 0;
					batchWritten.batchWritten(rows);
				}
			}
			if (in != null) {
				in.endCopy();
				in = null;
				batchWritten.batchWritten(rows);
			}
			return rows;
		}
		finally {
			if (in != null && in.isActive()) {
				in.cancelCopy();
			}
			if (out.isActive()) {
				out.cancelCopy();
			}
		}
	}

	/**
	 * Checks the foreign keys of a table the copy filled without their triggers, in the target's current transaction
	 * (after the copy's last commit): the referenced rows are locked as the keys' own check locks them, so a
	 * transaction deleting one is waited for, then the copied rows whose referenced row is missing are counted.
	 * @throws SQLException with SQLState 23503 if a copied row references a missing row
	 */
	private static void checkForeignKeys(Connection target, String select, String table) throws SQLException {
		record ForeignKey(String name, String parent, String childColumns, String parentColumns) {
		}
		List<ForeignKey> keys = new ArrayList<>();
		try (PreparedStatement ps = target.prepareStatement(FOREIGN_KEYS)) {
			ps.setString(1, table);
			try (ResultSet rs = ps.executeQuery()) {
				while (rs.next()) {
					keys.add(new ForeignKey(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4)));
				}
			}
		}
		for (ForeignKey key : keys) {
			String[] child = key.childColumns().split(", ");
			String[] parent = key.parentColumns().split(", ");
			List<String> notNull = new ArrayList<>();
			List<String> join = new ArrayList<>();
			for (int i = 0; i < child.length; i++) {
				notNull.add(child[i] + " IS NOT NULL");
				join.add(parent[i] + " = " + child[i]);
			}
			Map<String, String> names = Map.of("parent", key.parent(), "parentColumns", key.parentColumns(),
					"childColumns", key.childColumns(), "rows", select, "childNotNull", String.join(" AND ", notNull),
					"join", String.join(" AND ", join));
			try (PreparedStatement ps = target.prepareStatement(DialectSql.fill(LOCK_PARENTS, names))) {
				ps.execute();
			}
			try (PreparedStatement ps = target.prepareStatement(DialectSql.fill(MISSING_PARENTS, names));
					ResultSet rs = ps.executeQuery()) {
				rs.next();
				long missing = rs.getLong(1);
				if (missing > 0) {
					throw new SQLException("The copy into " + table + " left " + missing + " row(s) whose foreign key "
							+ key.name() + " references no row of " + key.parent()
							+ " on the target: the tenant's rows reference rows that are not on the target shard",
							"23503");
				}
			}
		}
	}

}
