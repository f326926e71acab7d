package io.github.shardtenancy.internal.move;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.github.shardtenancy.internal.topology.Topology;
import io.github.shardtenancy.spi.FenceDialect;

import static io.github.shardtenancy.internal.move.MoveSql.acrossTenants;
import static io.github.shardtenancy.internal.move.MoveSql.chunks;
import static io.github.shardtenancy.internal.move.MoveSql.withConnection;

/**
 * What verification compares: a tenant's row count and an order-independent checksum per table, and the rows of
 * some keys value by value. Stateless; thread-safe.
 */
final class Checksums {

	Checksums() {
	}

	/**
	 * Counts a tenant's rows in one table and sums a hash of each row's values: equal on both sides means the same
	 * multiset of rows, whatever order the databases return them in.
	 * @return {count, checksum}
	 * @throws SQLException on a database error
	 */
	static long[] countAndChecksum(Topology.Shard shard, TablePlan table, String tenantId)
			throws SQLException {
		return countAndChecksum(shard, table, tenantId, false);
	}

	/**
	 * Counts a tenant's rows in one table and sums a hash of each row's values; with {@code inDatabase} on PostgreSQL
	 * the database computes both ({@code hashtextextended} of the row's text form, summed modulo a prime), sending
	 * one row instead of the table's, otherwise as {@link #countAndChecksum(Topology.Shard, TablePlan, String)}.
	 * Both sides of a comparison must be computed the same way.
	 * @param inDatabase whether to compute in the database; only honoured on PostgreSQL
	 * @return {count, checksum}
	 * @throws SQLException on a database error
	 */
	static long[] countAndChecksum(Topology.Shard shard, TablePlan table, String tenantId,
			boolean inDatabase) throws SQLException {
		boolean byDatabase = inDatabase && shard.dialect().checksumAlgorithm() != null;
		return withConnection(shard, c -> acrossTenants(shard, c,
				() -> countAndChecksum(c, byDatabase ? shard.dialect() : null, table, tenantId)));
	}

	/**
	 * As {@link #countAndChecksum(Topology.Shard, TablePlan, String, boolean)}, on a connection (for example one
	 * in a snapshot), in the database if a dialect is given (the caller checked {@link #inDatabaseChecksum}).
	 * @param inDatabase the dialect of the connection's shard, to compute in the database, or {@code null}
	 * @return {count, checksum}
	 * @throws SQLException on a database error
	 */
	static long[] countAndChecksum(Connection c, FenceDialect inDatabase, TablePlan table, String tenantId)
			throws SQLException {
		if (inDatabase != null) {
			return inDatabase.countAndChecksum(c, table.sqlName(), table.columns(), table.tenantColumn(), tenantId);
		}
		try (PreparedStatement ps = c.prepareStatement("SELECT " + table.columnList() + " FROM " + table.sqlName()
						+ " WHERE " + table.tenantColumn() + " = ?")) {
			ps.setString(1, tenantId);
			long count = 0;
			long checksum = 0;
			try (ResultSet rs = ps.executeQuery()) {
				int columns = table.columns().size();
				while (rs.next()) {
					count++;
					StringBuilder row = new StringBuilder();
					for (int i = 1; i <= columns; i++) {
						row.append(rs.getString(i)).append('\u001f');
					}
					checksum += mix(row.toString().hashCode());
				}
			}
			return new long[] { count, checksum };
		}
	}

	/**
	 * Counts a tenant's rows in every table in one statement ({@code SELECT (SELECT COUNT(*) ...), (SELECT COUNT(*)
	 * ...)}): one round trip, whatever the number of tables.
	 * @param c a connection of the shard, reading every tenant's rows ({@link MoveSql#acrossTenants})
	 * @return the counts, in the order of {@code tables}
	 * @throws SQLException on a database error
	 */
	static long[] counts(Connection c, List<TablePlan> tables, String tenantId) throws SQLException {
		StringBuilder sql = new StringBuilder("SELECT ");
		for (int i = 0; i < tables.size(); i++) {
			TablePlan table = tables.get(i);
			sql.append(i == 0 ? "" : ", ")
				.append("(SELECT COUNT(*) FROM ")
				.append(table.sqlName())
				.append(" WHERE ")
				.append(table.tenantColumn())
				.append(" = ?)");
		}
		try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
			for (int i = 0; i < tables.size(); i++) {
				ps.setString(i + 1, tenantId);
			}
			try (ResultSet rs = ps.executeQuery()) {
				rs.next();
				long[] counts = new long[tables.size()];
				for (int i = 0; i < counts.length; i++) {
					counts[i] = rs.getLong(i + 1);
				}
				return counts;
			}
		}
	}

	/**
	 * Reads the rows of some keys of one table as the database writes their values as text
	 * ({@link KeyedRows#readAsText}), in chunks of 500 keys.
	 * @return the rows found, by logged key; a key without a row is absent
	 * @throws SQLException on a database error
	 */
	static Map<String, String> rowsAsText(Connection c, TablePlan table, Set<String> keys, String tenantId)
			throws SQLException {
		Map<String, String> rows = new java.util.HashMap<>();
		for (List<String> chunk : chunks(new ArrayList<>(keys), 500)) {
			rows.putAll(KeyedRows.readAsText(c, table, chunk, tenantId));
		}
		return rows;
	}

	/**
	 * @return a description of the first key whose rows differ (or exist on one side only), or {@code null} if
	 * every key has equal rows on both (or none)
	 */
	static String firstDifference(Set<String> keys, Map<String, String> onSource, Map<String, String> onTarget) {
		for (String key : keys) {
			String a = onSource.get(key);
			String b = onTarget.get(key);
			if (!java.util.Objects.equals(a, b)) {
				return "key " + key.replace(KEY_SEPARATOR, ",") + ": source " + a + ", target " + b;
			}
		}
		return null;
	}

	static final String KEY_SEPARATOR = "\u001f";

	static long mix(long h) {
		h ^= (h >>> 33);
		h *= 0xff51afd7ed558ccdL;
		h ^= (h >>> 33);
		return h;
	}

	/**
	 * @return whether the databases of both shards can compute a move's checksums themselves, the same way: their
	 * dialects name the same in-database checksum ({@link FenceDialect#checksumAlgorithm()})
	 */
	static boolean inDatabaseChecksum(Topology.Shard from, Topology.Shard to) {
		String algorithm = from.dialect().checksumAlgorithm();
		return algorithm != null && algorithm.equals(to.dialect().checksumAlgorithm());
	}

}
