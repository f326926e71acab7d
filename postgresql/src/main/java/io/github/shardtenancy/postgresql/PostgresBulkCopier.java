package io.github.shardtenancy.postgresql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

import io.github.shardtenancy.spi.BulkCopier;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;
import org.postgresql.copy.CopyManager;
import org.postgresql.copy.CopyOut;

/**
 * The online mover's bulk copy between two PostgreSQL shards with {@code COPY}: {@code COPY (SELECT ...) TO STDOUT}
 * on the source, in the mover's snapshot, streamed row by row (text format, never buffered whole) into
 * {@code COPY table (columns) FROM STDIN} on the target, one {@code COPY} per batch so that each batch commits on its
 * own. The target's row triggers still fire (the fence's and the change capture's skip the mover's rows in their
 * {@code WHEN} clause; foreign keys are checked as usual). Registered for {@link java.util.ServiceLoader}. Stateless;
 * thread-safe.
 */
public final class PostgresBulkCopier implements BulkCopier {

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

	@Override
	public long copy(Connection source, String select, Connection target, String table, String columnList,
			int batchSize, BatchWritten batchWritten) throws SQLException {
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

}
