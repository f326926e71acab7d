package io.github.shardtenancy.internal.move;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.shardtenancy.internal.topology.Topology;

import static io.github.shardtenancy.internal.move.MoveSql.MAX_PARAMETERS;
import static io.github.shardtenancy.internal.move.MoveSql.MAX_ROWS_PER_INSERT;
import static io.github.shardtenancy.internal.move.MoveSql.bindRows;
import static io.github.shardtenancy.internal.move.MoveSql.chunks;
import static io.github.shardtenancy.internal.move.MoveSql.indexOf;
import static io.github.shardtenancy.internal.move.MoveSql.multiRowInsert;
import static io.github.shardtenancy.internal.move.MoveSql.values;

/**
 * Reads and writes of single rows by their logged primary key, for the catch-up and the verification: reads on the
 * source, deletes and upserts (never DELETE + INSERT, which would cascade to the row's children) on the target.
 * Stateless; thread-safe.
 */
final class KeyedRows {

	KeyedRows() {
	}

	/**
	 * Reads the rows of some logged keys on the source, in one query whatever the key's shape (a list of parameters,
	 * or the table's key list).
	 * @return the rows found, by logged key; a key without a row is absent
	 */
	static Map<String, Object[]> read(Connection source, TablePlan table, List<String> keys, String tenantId)
			throws SQLException {
		return read(source, table, keys, tenantId, (rs, columns) -> values(rs, table));
	}

	/**
	 * Reads the rows of some logged keys as the database writes each value as text ({@link ResultSet#getString} of
	 * {@link TablePlan#selectList()}: a {@code bytea} as its hex form, a {@code jsonb} normalized, on PostgreSQL
	 * {@code c::text} whatever format the driver received), for a comparison of two databases' rows that does not
	 * depend on how Java objects print or compare.
	 * @return each row found as {@code (v1, v2, ...)}, by logged key; a key without a row is absent
	 */
	static Map<String, String> readAsText(Connection c, TablePlan table, List<String> keys, String tenantId)
			throws SQLException {
		return read(c, table, keys, tenantId, (rs, columns) -> {
			StringBuilder row = new StringBuilder("(");
			for (int i = 1; i <= columns; i++) {
				row.append(i > 1 ? ", " : "").append(rs.getString(i));
			}
			return row.append(')').toString();
		});
	}

	private static <T> Map<String, T> read(Connection c, TablePlan table, List<String> keys, String tenantId,
			RowReader<T> reader) throws SQLException {
		Map<String, T> found = new LinkedHashMap<>();
		if (keys.isEmpty()) {
			return found;
		}
		int columns = table.columns().size();
		List<TablePlan.KeyColumn> keyColumns = table.keys();
		int[] keyIndexes = keyColumns.stream().mapToInt(k -> indexOf(table.columns(), k.name())).toArray();
		// Each logged key by its values as JDBC parameters, the form a row's key is matched in below.
		Map<List<Object>, String> byValues = new LinkedHashMap<>();
		for (String logged : keys) {
			byValues.put(List.of(table.parseKey(logged)), logged);
		}
		try (PreparedStatement ps = c.prepareStatement("SELECT " + table.selectList() + " FROM " + table.sqlName()
				+ " WHERE " + table.tenantColumn() + " = ? AND " + keyIn(table, byValues.size()))) {
			ps.setString(1, tenantId);
			bindKeys(c, ps, 2, table, List.copyOf(byValues.values()));
			try (ResultSet rs = ps.executeQuery()) {
				while (rs.next()) {
					// The key as the capture trigger logs it (KeyColumn.logged), matched by its parsed values.
					StringBuilder text = new StringBuilder();
					for (int k = 0; k < keyIndexes.length; k++) {
						text.append(k > 0 ? TablePlan.KEY_SEPARATOR : "")
							.append(String.valueOf(
									keyColumns.get(k).logged(rs, keyIndexes[k] + 1, table.valuesAsText())));
					}
					String logged = byValues.get(List.of(table.parseKey(text.toString())));
					if (logged != null) {
						found.put(logged, reader.read(rs, columns));
					}
				}
			}
		}
		return found;
	}

	/** Reads the current row of a result set. */
	@FunctionalInterface
	private interface RowReader<T> {

		T read(ResultSet rs, int columns) throws SQLException;

	}

	/**
	 * @param table the table
	 * @param keys how many keys the condition lists
	 * @return {@code k IN (?, ...)} or {@code (k1, k2) IN ((?, ?), ...)}, or with the table's
	 * {@linkplain TablePlan#keyList key list} {@code (k1, k2) IN (keyList)}
	 */
	private static String keyIn(TablePlan table, int keys) {
		List<TablePlan.KeyColumn> keyColumns = table.keys();
		String target = keyColumns.size() == 1 ? keyColumns.get(0).name()
				: "(" + String.join(", ", keyColumns.stream().map(TablePlan.KeyColumn::name).toList()) + ")";
		if (table.keyList() != null) {
			return target + " IN (" + table.keyList() + ")";
		}
		String one = keyColumns.size() == 1 ? "?"
				: "(" + String.join(", ", keyColumns.stream().map(k -> "?").toList()) + ")";
		return target + " IN (" + String.join(", ", java.util.Collections.nCopies(keys, one)) + ")";
	}

	/**
	 * Binds the parameters of {@link #keyIn}: with the table's key list one {@code text} array per key column, the
	 * logged values; otherwise each key's values parsed ({@link TablePlan#parseKey}), key after key.
	 * @param keys the logged keys, each once
	 * @return the index of the next parameter
	 */
	private static int bindKeys(Connection c, PreparedStatement ps, int first, TablePlan table, List<String> keys)
			throws SQLException {
		int i = first;
		if (table.keyList() != null) {
			List<String[]> split = new ArrayList<>(keys.size());
			for (String key : keys) {
				String[] parts = key.split(TablePlan.KEY_SEPARATOR, -1);
				if (parts.length != table.keys().size()) {
					table.parseKey(key); // throws, naming the key and the table
				}
				split.add(parts);
			}
			return MoveSql.bindKeyList(c, ps, i, table.keys().size(), split);
		}
		for (String key : keys) {
			for (Object value : table.parseKey(key)) {
				table.bind(ps, i++, value);
			}
		}
		return i;
	}

	/**
	 * Deletes the rows of some logged keys of the tenant on the target: with the table's key list one statement,
	 * otherwise one batch of a statement per key.
	 */
	static void delete(Connection target, TablePlan table, List<String> keys, String tenantId)
			throws SQLException {
		if (table.keyList() != null) {
			try (PreparedStatement ps = target.prepareStatement("DELETE FROM " + table.sqlName() + " WHERE "
					+ table.tenantColumn() + " = ? AND " + keyIn(table, keys.size()))) {
				ps.setString(1, tenantId);
				bindKeys(target, ps, 2, table, keys);
				ps.executeUpdate();
			}
			return;
		}
		try (PreparedStatement ps = target
			.prepareStatement("DELETE FROM " + table.sqlName() + " WHERE " + table.keyPredicate())) {
			for (String key : keys) {
				bindKey(ps, table, key, tenantId, 1);
				ps.addBatch();
			}
			ps.executeBatch();
		}
	}

	static void upsert(Connection target, Topology.Shard to, TablePlan table, List<Object[]> rows)
			throws SQLException {
		if (rows.isEmpty()) {
			return;
		}
		List<String> keyColumns = table.keys().stream().map(TablePlan.KeyColumn::name).toList();
		if (!to.dialect().upsert(target, table.sqlName(), table.columns(), keyColumns, table.updatedColumns(), rows)) {
			upsert(target, table, rows);
		}
	}

	/**
	 * Writes rows to the target: a batch of UPDATEs by key, then a batch of INSERTs for the rows no UPDATE found
	 * (never DELETE + INSERT, which would cascade to the row's children).
	 */
	static void upsert(Connection target, TablePlan table, List<Object[]> rows) throws SQLException {
		if (rows.isEmpty()) {
			return;
		}
		List<String> valueColumns = table.updatedColumns();
		int[] keyIndexes = table.keys().stream().mapToInt(k -> indexOf(table.columns(), k.name())).toArray();
		int tenantIndex = indexOf(table.columns(), table.tenantColumn());
		List<Object[]> missing = new ArrayList<>();
		String where = table.keyPredicate();
		String sql = valueColumns.isEmpty()
				? "UPDATE " + table.sqlName() + " SET " + table.tenantColumn() + " = " + table.tenantColumn() + " WHERE "
						+ where
				: "UPDATE " + table.sqlName() + " SET "
						+ String.join(", ", valueColumns.stream().map(c -> c + " = ?").toList()) + " WHERE " + where;
		try (PreparedStatement ps = target.prepareStatement(sql)) {
			for (Object[] row : rows) {
				int i = 1;
				for (String column : valueColumns) {
					table.bind(ps, i++, row[indexOf(table.columns(), column)]);
				}
				for (int keyIndex : keyIndexes) {
					table.bind(ps, i++, row[keyIndex]);
				}
				table.bind(ps, i, row[tenantIndex]);
				ps.addBatch();
			}
			int[] counts = ps.executeBatch();
			for (int r = 0; r < rows.size(); r++) {
				if (counts[r] == 0) {
					missing.add(rows.get(r));
				}
			}
		}
		if (!missing.isEmpty()) {
			String marks = String.join(", ", table.columns().stream().map(c -> "?").toList());
			try (PreparedStatement ps = target.prepareStatement(
					"INSERT INTO " + table.sqlName() + " (" + table.columnList() + ") " + MoveSql.OVERRIDING
							+ " VALUES (" + marks + ")")) {
				for (Object[] row : missing) {
					for (int i = 0; i < row.length; i++) {
						table.bind(ps, i + 1, row[i]);
					}
					ps.addBatch();
				}
				ps.executeBatch();
			}
		}
	}

	static void bindKey(PreparedStatement ps, TablePlan table, String key, String tenantId, int first)
			throws SQLException {
		Object[] values = table.parseKey(key);
		int i = first;
		for (Object value : values) {
			table.bind(ps, i++, value);
		}
		ps.setString(i, tenantId);
	}

}
