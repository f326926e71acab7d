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
	 * Reads the rows of some logged keys on the source: one {@code IN} query for a single-column key, one query per
	 * key otherwise.
	 * @return the rows found, by logged key; a key without a row is absent
	 */
	static Map<String, Object[]> read(Connection source, TablePlan table, List<String> keys, String tenantId)
			throws SQLException {
		Map<String, Object[]> found = new LinkedHashMap<>();
		int columns = table.columns().size();
		if (table.keys().size() == 1) {
			TablePlan.KeyColumn key = table.keys().get(0);
			int keyIndex = indexOf(table.columns(), key.name());
			Map<Object, String> byValue = new LinkedHashMap<>();
			for (String logged : keys) {
				byValue.put(key.parse(logged), logged);
			}
			String marks = String.join(", ", keys.stream().map(k -> "?").toList());
			try (PreparedStatement ps = source.prepareStatement("SELECT " + table.columnList() + " FROM "
					+ table.sqlName() + " WHERE " + table.tenantColumn() + " = ? AND " + key.name() + " IN (" + marks
					+ ")")) {
				ps.setString(1, tenantId);
				int i = 2;
				for (Object value : byValue.keySet()) {
					ps.setObject(i++, value);
				}
				try (ResultSet rs = ps.executeQuery()) {
					while (rs.next()) {
						Object[] row = values(rs, columns);
						String logged = byValue.get(key.parse(String.valueOf(row[keyIndex])));
						if (logged != null) {
							found.put(logged, row);
						}
					}
				}
			}
			return found;
		}
		try (PreparedStatement ps = source.prepareStatement(
				"SELECT " + table.columnList() + " FROM " + table.sqlName() + " WHERE " + table.keyPredicate())) {
			for (String logged : keys) {
				bindKey(ps, table, logged, tenantId, 1);
				try (ResultSet rs = ps.executeQuery()) {
					if (rs.next()) {
						found.put(logged, values(rs, columns));
					}
				}
			}
		}
		return found;
	}

	static void delete(Connection target, TablePlan table, List<String> keys, String tenantId)
			throws SQLException {
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
		if (!to.dialect().upsert(target, table.sqlName(), table.columns(), keyColumns, rows)) {
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
		List<String> valueColumns = table.valueColumns();
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
					ps.setObject(i++, row[indexOf(table.columns(), column)]);
				}
				for (int keyIndex : keyIndexes) {
					ps.setObject(i++, row[keyIndex]);
				}
				ps.setObject(i, row[tenantIndex]);
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
					"INSERT INTO " + table.sqlName() + " (" + table.columnList() + ") VALUES (" + marks + ")")) {
				for (Object[] row : missing) {
					for (int i = 0; i < row.length; i++) {
						ps.setObject(i + 1, row[i]);
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
			ps.setObject(i++, value);
		}
		ps.setString(i, tenantId);
	}

}
