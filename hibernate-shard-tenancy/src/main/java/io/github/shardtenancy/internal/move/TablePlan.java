package io.github.shardtenancy.internal.move;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Types;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
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
import io.github.shardtenancy.spi.FenceDialect;
import org.jspecify.annotations.Nullable;

/**
 * One tenant table as the online mover sees it on a shard: its columns in order, its primary key (with the types
 * needed to turn a logged key back into parameters), and SQL built from them. Immutable and thread-safe.
 *
 * @param table the table as configured
 * @param name the table name as the database stores it (upper case on H2, lower case on PostgreSQL), unqualified
 * @param columns every column the move writes, in ordinal order: generated columns are left out, the target computes
 * them
 * @param keys the primary key columns, in key order
 * @param valuesAsText whether the mover reads every value as the database writes it as text and binds it untyped, for
 * the database to read with the column's type ({@link #read}, {@link #bind}): on PostgreSQL, where the driver's Java
 * objects of several types lose part of the value or cannot be bound back
 * @param keyList for a composite key, the dialect's query answering a list of keys as typed rows
 * ({@link FenceDialect#keyList}), or {@code null}: reads and deletes by key then list every key's values as parameters
 * @param drawnColumns the columns outside the key whose values the database draws (identity columns, {@code serial}):
 * written with a row the mover inserts, left alone in a row it updates (PostgreSQL refuses to update a column
 * {@code GENERATED ALWAYS AS IDENTITY})
 */
public record TablePlan(TenantTable table, String name, List<String> columns, List<KeyColumn> keys,
		boolean valuesAsText, @Nullable String keyList, List<String> drawnColumns) {

	/**
	 * A plan whose columns outside the key are all written by updates.
	 * @param table the table as configured
	 * @param name the table name as the database stores it
	 * @param columns every column the move writes
	 * @param keys the primary key columns
	 * @param valuesAsText whether the mover moves values as their text form
	 * @param keyList the dialect's key list, or {@code null}
	 */
	public TablePlan(TenantTable table, String name, List<String> columns, List<KeyColumn> keys,
			boolean valuesAsText, @Nullable String keyList) {
		this(table, name, columns, keys, valuesAsText, keyList, List.of());
	}

	/**
	 * A plan without the dialect's key list.
	 * @param table the table as configured
	 * @param name the table name as the database stores it
	 * @param columns every column the move writes
	 * @param keys the primary key columns
	 * @param valuesAsText whether the mover moves values as their text form
	 */
	public TablePlan(TenantTable table, String name, List<String> columns, List<KeyColumn> keys,
			boolean valuesAsText) {
		this(table, name, columns, keys, valuesAsText, null);
	}

	/**
	 * A plan that moves values as the driver's Java objects.
	 * @param table the table as configured
	 * @param name the table name as the database stores it
	 * @param columns every column the move writes
	 * @param keys the primary key columns
	 */
	public TablePlan(TenantTable table, String name, List<String> columns, List<KeyColumn> keys) {
		this(table, name, columns, keys, false, null);
	}

	/**
	 * A primary key column.
	 * @param name the column name
	 * @param jdbcType its {@link Types} code
	 * @param typeName the database's type name
	 */
	public record KeyColumn(String name, int jdbcType, String typeName) {

		/**
		 * Reads a row's value of this column in the form the capture trigger logs it, whose text
		 * ({@code String.valueOf}) is then the logged text: with {@code asText} the text the query selected
		 * (PostgreSQL's trigger logs {@code NEW.k::text}); otherwise the {@code java.time} object of a date or time,
		 * which H2 hands its triggers ({@code H2CaptureTrigger}), where {@code getObject} returns a
		 * {@link java.sql.Date} or {@link java.sql.Timestamp}, whose text differs (a {@code 0001-01-01} prints as
		 * {@code 0001-01-03}, the Julian calendar's day), and any other value's object.
		 * @param rs a result set on a row
		 * @param column the column's index, from 1
		 * @param asText whether the query selected the column's text form ({@link TablePlan#selectList()})
		 * @return the value
		 * @throws SQLException on a database error
		 */
		public Object logged(ResultSet rs, int column, boolean asText) throws SQLException {
			if (asText) {
				return rs.getString(column);
			}
			return switch (this.jdbcType) {
				case Types.DATE -> rs.getObject(column, LocalDate.class);
				case Types.TIME -> rs.getObject(column, LocalTime.class);
				case Types.TIMESTAMP -> rs.getObject(column, LocalDateTime.class);
				case Types.TIME_WITH_TIMEZONE -> rs.getObject(column, OffsetTime.class);
				case Types.TIMESTAMP_WITH_TIMEZONE -> rs.getObject(column, OffsetDateTime.class);
				default -> rs.getObject(column);
			};
		}

		/**
		 * @param text a key value as logged by the capture trigger, a date or time as its {@code java.time} object's
		 * text ({@link #logged})
		 * @return the value as a JDBC parameter of this column's type; a date or time as its {@code java.time} object
		 * (H2 cannot read {@code 2024-01-01T01:02+05:00}, an {@link OffsetDateTime}'s text without its zero seconds,
		 * as a {@code TIMESTAMP WITH TIME ZONE})
		 */
		public Object parse(String text) {
			if ("uuid".equalsIgnoreCase(this.typeName)) {
				return UUID.fromString(text);
			}
			return switch (this.jdbcType) {
				case Types.BIGINT -> Long.valueOf(text);
				case Types.INTEGER, Types.SMALLINT, Types.TINYINT -> Integer.valueOf(text);
				case Types.NUMERIC, Types.DECIMAL -> new java.math.BigDecimal(text);
				case Types.DATE -> LocalDate.parse(text);
				case Types.TIME -> LocalTime.parse(text);
				case Types.TIMESTAMP -> LocalDateTime.parse(text);
				case Types.TIME_WITH_TIMEZONE -> OffsetTime.parse(text);
				case Types.TIMESTAMP_WITH_TIMEZONE -> OffsetDateTime.parse(text);
				default -> text;
			};
		}

	}

	/**
	 * Reads a value the mover writes elsewhere, selected by {@link #selectList()}: with {@link #valuesAsText} its text
	 * form; otherwise the driver's object ({@link ResultSet#getObject}), but a {@code TIME} as a {@link LocalTime},
	 * since a {@link java.sql.Time} keeps milliseconds only (H2's {@code TIME(9)} has nanoseconds).
	 * <p>Text on PostgreSQL because pgjdbc's objects are not the value for every type: a {@code time} or
	 * {@code timetz} comes as a {@link java.sql.Time} (milliseconds, no offset; {@code 24:00:00} becomes midnight), an
	 * infinite {@code interval} as a zero {@code PGInterval}, an {@code xml} without its declaration, a {@code money}
	 * as a {@code double} that cannot be read once the text has a thousands separator and binds as
	 * {@code double precision}, which the column refuses, and an enum as a {@code String} that binds as
	 * {@code varchar}, refused likewise. The text form is what {@code COPY}'s text format moves, each value written by
	 * its type's output function and read back by its input function
	 * (https://www.postgresql.org/docs/current/sql-copy.html).
	 * @param rs a result set on a row
	 * @param meta its metadata
	 * @param column the column's index, from 1
	 * @return the value
	 * @throws SQLException on a database error
	 */
	public Object read(ResultSet rs, ResultSetMetaData meta, int column) throws SQLException {
		if (this.valuesAsText) {
			return rs.getString(column);
		}
		return meta.getColumnType(column) == Types.TIME ? rs.getObject(column, LocalTime.class) : rs.getObject(column);
	}

	/**
	 * Binds a value read by {@link #read} (or a key from {@link #parseKey}): with {@link #valuesAsText} a text value
	 * untyped ({@link Types#OTHER}, which pgjdbc sends with no type), so that the database reads it with the type of
	 * the column it is written to or compared with; otherwise as the object it is.
	 * @param ps the statement
	 * @param index the parameter's index, from 1
	 * @param value the value
	 * @throws SQLException on a database error
	 */
	public void bind(PreparedStatement ps, int index, Object value) throws SQLException {
		if (this.valuesAsText && value instanceof String) {
			ps.setObject(index, value, Types.OTHER);
		}
		else {
			ps.setObject(index, value);
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

	/**
	 * @return the columns as the mover selects the values it writes elsewhere or compares: with
	 * {@link #valuesAsText} each as its text form ({@code c1::text, c2::text}: pgjdbc's {@code getString} of a
	 * {@code float8} or {@code point} column it received in binary writes Java's {@code 1.0E300} where PostgreSQL
	 * writes {@code 1e+300}), otherwise {@link #columnList()}
	 */
	public String selectList() {
		return this.valuesAsText ? String.join(", ", this.columns.stream().map(c -> c + "::text").toList())
				: columnList();
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

	/** @return the columns the mover's update of an existing row sets: the non-key columns but the drawn ones */
	public List<String> updatedColumns() {
		List<String> values = valueColumns();
		values.removeIf(c -> this.drawnColumns.stream().anyMatch(c::equalsIgnoreCase));
		return values;
	}

	/**
	 * @param rowKey a logged key
	 * @return its values as parameters, in key order: with {@link #valuesAsText} the logged texts, which
	 * {@link #bind} binds untyped for the database to read (a {@code numeric} key may be {@code NaN}, a {@code date}
	 * {@code infinity}); otherwise each parsed by {@link KeyColumn#parse}
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
			values[i] = this.valuesAsText ? parts[i] : this.keys.get(i).parse(parts[i]);
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
		return plan(c, null, shardId, tenantId, tables);
	}

	/**
	 * As {@link #plan(Connection, String, String, List)}, with the shard's dialect's key list of each table whose
	 * primary key has several columns ({@link FenceDialect#keyList}).
	 * @param c a connection to the shard
	 * @param dialect the shard's dialect, or {@code null} for plans without key lists
	 * @param shardId the shard, for messages
	 * @param tenantId the tenant being moved, for messages
	 * @param tables the configured tables
	 * @return the plans, parents first
	 * @throws MoveException naming the first table that cannot be moved
	 * @throws SQLException if the metadata cannot be read
	 */
	public static List<TablePlan> plan(Connection c, @Nullable FenceDialect dialect, String shardId, String tenantId,
			List<TenantTable> tables) throws SQLException {
		DatabaseMetaData meta = c.getMetaData();
		boolean asText = "PostgreSQL".equalsIgnoreCase(meta.getDatabaseProductName());
		Map<String, TablePlan> byName = new LinkedHashMap<>();
		for (TenantTable table : tables) {
			String name = normalise(meta, table.table());
			String schema = table.table().contains(".")
					? normalise(meta, table.table().substring(0, table.table().indexOf('.'))) : null;
			List<String> columns = new ArrayList<>();
			List<String> drawn = new ArrayList<>();
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
					if ("YES".equals(rs.getString("IS_AUTOINCREMENT"))) {
						drawn.add(rs.getString("COLUMN_NAME"));
					}
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
			// A composite key's lookups by a list of parameters cost the planner most, the longer the list and the key;
			// a one-column key's list is an = ANY(...) of one index column, cheap to plan and safe with any statistics.
			String keyList = dialect == null || keys.size() < 2 ? null
					: dialect.keyList(c, table.table(), keys.stream().map(KeyColumn::name).toList());
			drawn.removeIf(column -> keys.stream().anyMatch(k -> k.name().equals(column)));
			byName.put(name, new TablePlan(table, name, List.copyOf(columns), List.copyOf(keys), asText, keyList,
					List.copyOf(drawn)));
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
