package io.github.shardtenancy.internal.move;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;
import java.util.TreeMap;
import java.util.UUID;

import io.github.shardtenancy.MoveException;
import io.github.shardtenancy.TenantTable;

/**
 * One tenant table as the online mover sees it on a shard: its columns in order, its primary key (with the types
 * needed to turn a logged key back into parameters), and SQL built from them. Immutable and thread-safe.
 *
 * @param table the table as configured
 * @param name the table name as the database stores it (upper case on H2, lower case on PostgreSQL), unqualified
 * @param columns every column the move writes, in ordinal order: generated columns are left out, the target computes
 * them
 * @param keys the primary key columns, in key order
 */
public record TablePlan(TenantTable table, String name, List<String> columns, List<KeyColumn> keys) {

	/**
	 * A primary key column.
	 * @param name the column name
	 * @param jdbcType its {@link Types} code
	 * @param typeName the database's type name
	 */
	public record KeyColumn(String name, int jdbcType, String typeName) {

		/**
		 * @param text a key value as logged by the capture trigger
		 * @return the value as a JDBC parameter of this column's type
		 */
		public Object parse(String text) {
			if ("uuid".equalsIgnoreCase(this.typeName)) {
				return UUID.fromString(text);
			}
			return switch (this.jdbcType) {
				case Types.BIGINT -> Long.valueOf(text);
				case Types.INTEGER, Types.SMALLINT, Types.TINYINT -> Integer.valueOf(text);
				case Types.NUMERIC, Types.DECIMAL -> new java.math.BigDecimal(text);
				default -> text;
			};
		}

	}

	/** Separates the values of a composite key in the change log, as the capture triggers write it. */
	public static final String KEY_SEPARATOR = "\u001f";

	/** @return the configured table name, for SQL and messages */
	public String sqlName() {
		return this.table.table();
	}

	/** @return the tenant column */
	public String tenantColumn() {
		return this.table.tenantColumn();
	}

	/** @return the columns, comma-separated */
	public String columnList() {
		return String.join(", ", this.columns);
	}

	/** @return {@code k1 = ? AND k2 = ? AND tenant = ?} */
	public String keyPredicate() {
		StringJoiner where = new StringJoiner(" AND ");
		this.keys.forEach(k -> where.add(k.name() + " = ?"));
		return where.add(tenantColumn() + " = ?").toString();
	}

	/** @return the non-key columns */
	public List<String> valueColumns() {
		List<String> values = new ArrayList<>(this.columns);
		this.keys.forEach(k -> values.removeIf(c -> c.equalsIgnoreCase(k.name())));
		return values;
	}

	/**
	 * @param rowKey a logged key
	 * @return its values as parameters, in key order
	 * @throws IllegalArgumentException if it does not have one value per key column
	 */
	public Object[] parseKey(String rowKey) {
		String[] parts = rowKey.split(KEY_SEPARATOR, -1);
		if (parts.length != this.keys.size()) {
			throw new IllegalArgumentException("Key '" + rowKey + "' of table " + sqlName() + " has " + parts.length
					+ " values, the primary key " + this.keys.size());
		}
		Object[] values = new Object[parts.length];
		for (int i = 0; i < parts.length; i++) {
			values[i] = this.keys.get(i).parse(parts[i]);
		}
		return values;
	}

	/**
	 * Reads the tables on a shard, refuses a table that is missing, lacks its tenant column or a primary key (naming
	 * it), and sorts them so that a table comes after the tables its foreign keys point to.
	 * @param c a connection to the shard
	 * @param shardId the shard, for messages
	 * @param tenantId the tenant being moved, for messages
	 * @param tables the configured tables
	 * @return the plans, parents first
	 * @throws MoveException naming the first table that cannot be moved
	 * @throws SQLException if the metadata cannot be read
	 */
	public static List<TablePlan> plan(Connection c, String shardId, String tenantId, List<TenantTable> tables)
			throws SQLException {
		DatabaseMetaData meta = c.getMetaData();
		Map<String, TablePlan> byName = new LinkedHashMap<>();
		for (TenantTable table : tables) {
			String name = normalise(meta, table.table());
			String schema = table.table().contains(".")
					? normalise(meta, table.table().substring(0, table.table().indexOf('.'))) : null;
			List<String> columns = new ArrayList<>();
			boolean tenantColumn = false;
			String wanted = normalise(meta, table.tenantColumn());
			try (ResultSet rs = meta.getColumns(null, schema, name, null)) {
				TreeMap<Integer, String> ordered = new TreeMap<>();
				while (rs.next()) {
					// A generated column (GENERATED ALWAYS AS (...)) is computed by the target from the copied
					// columns and cannot be written; an identity column (also "auto-increment") is copied.
					if ("YES".equals(rs.getString("IS_GENERATEDCOLUMN"))
							&& !"YES".equals(rs.getString("IS_AUTOINCREMENT"))) {
						continue;
					}
					ordered.put(rs.getInt("ORDINAL_POSITION"), rs.getString("COLUMN_NAME"));
				}
				columns.addAll(ordered.values());
			}

			if (columns.isEmpty()) {
				throw new MoveException("Table " + table.table() + " does not exist on shard '" + shardId
						+ "'; the move of tenant '" + tenantId + "' cannot start", tenantId, shardId, -1, null);
			}
			for (String column : columns) {
				tenantColumn |= column.equals(wanted);
			}
			if (!tenantColumn) {
				throw new MoveException("Table " + table.table() + " has no tenant column " + table.tenantColumn()
						+ " on shard '" + shardId + "'; the move of tenant '" + tenantId
						+ "' cannot start: a move needs the tenant id on every row it copies", tenantId, shardId, -1,
						null);
			}
			TreeMap<Integer, String> keyNames = new TreeMap<>();
			try (ResultSet rs = meta.getPrimaryKeys(null, schema, name)) {
				while (rs.next()) {
					keyNames.put(rs.getInt("KEY_SEQ"), rs.getString("COLUMN_NAME"));
				}
			}
			if (keyNames.isEmpty()) {
				throw new MoveException("Table " + table.table() + " has no primary key on shard '" + shardId
						+ "'; the move of tenant '" + tenantId + "' cannot start: catch-up finds changed rows by key",
						tenantId, shardId, -1, null);
			}
			List<KeyColumn> keys = new ArrayList<>();
			for (String key : keyNames.values()) {
				try (ResultSet rs = meta.getColumns(null, schema, name, key)) {
					rs.next();
					keys.add(new KeyColumn(key, rs.getInt("DATA_TYPE"), rs.getString("TYPE_NAME")));
				}
			}
			byName.put(name, new TablePlan(table, name, List.copyOf(columns), List.copyOf(keys)));
		}
		List<TablePlan> ordered = new ArrayList<>();
		List<String> pending = new ArrayList<>(byName.keySet());
		while (!pending.isEmpty()) {
			boolean progressed = false;
			for (String name : List.copyOf(pending)) {
				if (parents(meta, name).stream().noneMatch(p -> !p.equals(name) && pending.contains(p))) {
					ordered.add(byName.get(name));
					pending.remove(name);
					progressed = true;
				}
			}
			if (!progressed) { // a foreign-key cycle: keep the configured order for the rest
				pending.forEach(name -> ordered.add(byName.get(name)));
				break;
			}
		}
		return List.copyOf(ordered);
	}

	/**
	 * @param meta the database's metadata
	 * @param identifier an unquoted identifier, optionally schema-qualified
	 * @return its last part as the database stores unquoted identifiers (upper or lower case)
	 * @throws SQLException if the metadata cannot be read
	 */
	public static String normalise(DatabaseMetaData meta, String identifier) throws SQLException {
		String bare = identifier.contains(".") ? identifier.substring(identifier.indexOf('.') + 1) : identifier;
		if (meta.storesUpperCaseIdentifiers()) {
			return bare.toUpperCase(Locale.ROOT);
		}
		return meta.storesLowerCaseIdentifiers() ? bare.toLowerCase(Locale.ROOT) : bare;
	}

	private static List<String> parents(DatabaseMetaData meta, String table) throws SQLException {
		List<String> parents = new ArrayList<>();
		try (ResultSet rs = meta.getImportedKeys(null, null, table)) {
			while (rs.next()) {
				parents.add(rs.getString("PKTABLE_NAME"));
			}
		}
		return parents;
	}

}
