package io.github.shardtenancy.postgresql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

import io.github.shardtenancy.spi.BulkCopier;
import io.github.shardtenancy.spi.DialectSql;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;
import org.postgresql.copy.CopyManager;
import org.postgresql.copy.CopyOperation;
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
 * {@code SET ON PARAMETER session_replication_role}) and the target table allows it ({@code copy-replica-refusal.sql}:
 * no rule, no trigger enabled {@code REPLICA}, no internal trigger but foreign keys', no column compared other than
 * byte by byte), each batch's {@code COPY} runs with {@code session_replication_role = replica}, set for the batch's
 * transaction only (https://www.postgresql.org/docs/current/runtime-config-client.html#GUC-SESSION-REPLICATION-ROLE):
 * the application's triggers do not fire for the copy (a move is not the application's insert), nor do the fence's
 * row trigger, which would accept every row of the copy anyway (the rows are the moving tenant's, read by the copy's
 * {@code SELECT}), and the foreign keys' per-row checks. The foreign keys are then checked once per table after its
 * last batch ({@link ForeignKeyCheck}); a missing referenced row fails the copy with SQLState 23503 as the key's own
 * check would. Otherwise the row triggers fire for every row (the fence's and the change capture's accept the mover's
 * rows on their first line; foreign keys are checked as usual); the mover refuses, before it starts, to move a
 * tenant table with triggers of the application that way ({@link PostgresFenceDialect#moveTriggerRefusals}). Which of
 * the two is used is logged at INFO, once per table and copy. Registered for {@link java.util.ServiceLoader}.
 * Stateless; thread-safe.
 */
public final class PostgresBulkCopier implements BulkCopier {

	private static final Logger log = LoggerFactory.getLogger(PostgresBulkCopier.class);

	private static final String PRIVILEGE = DialectSql.load(PostgresBulkCopier.class, "copy-replica-privilege");

	private static final String PRIVILEGE_BEFORE_15 = DialectSql.load(PostgresBulkCopier.class,
			"copy-replica-privilege-before-15");

	private static final String REFUSAL = DialectSql.load(PostgresBulkCopier.class, "copy-replica-refusal");

	private static final String REPLICA_ON = DialectSql.load(PostgresBulkCopier.class, "copy-replica-on");




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
				String role = target.getMetaData().getUserName();
				return "the role " + role + " may not set session_replication_role (" + (since15
						? "as a superuser: GRANT SET ON PARAMETER session_replication_role TO " + role
								+ "; or connect the shard as a superuser"
						: "only a superuser may before PostgreSQL 15; PostgreSQL 15 and later also let a superuser "
								+ "GRANT SET ON PARAMETER session_replication_role TO " + role)
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
			ForeignKeyCheck.check(target, table, parameters -> select);
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
		catch (SQLException | RuntimeException ex) {
			cancel(in, ex);
			cancel(out, ex);
			throw ex;
		}
	}

	/**
	 * Cancels a copy still active after a failure; what the cancel throws is added to the failure, which stays the
	 * one reported (the caller discards both connections, whatever state the cancel left them in).
	 */
	private static void cancel(CopyOperation copy, Exception failure) {
		try {
			if (copy != null && copy.isActive()) {
				copy.cancelCopy();
			}
		}
		catch (SQLException | RuntimeException ex) {
			failure.addSuppressed(ex);
		}
	}

}
