package io.github.shardtenancy.flyway;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import javax.sql.DataSource;

/**
 * What a migration built in a database, as lines that compare across two databases of one product: tables, columns
 * (type, size, nullability, identity), primary keys, indexes, check constraints, functions, triggers and the rows the
 * migration inserted. The history tables of the migration tools are left out.
 */
final class SchemaSnapshot {

	private static final Set<String> HISTORY_TABLES = Set.of("databasechangelog", "databasechangeloglock",
			"shard_tenancy_schema_history", "flyway_schema_history");

	private SchemaSnapshot() {
	}

	/**
	 * Migrates the first database's directory with Liquibase, the second's with Flyway, and compares them.
	 * @return the Liquibase database's snapshot, which the Flyway one equals
	 */
	static List<String> sameDirectory(DataSource liquibase, DataSource flyway) throws SQLException {
		io.github.shardtenancy.liquibase.ShardTenancyMigrations.migrateDirectory(liquibase);
		ShardTenancyFlyway.migrateDirectory(flyway);
		List<String> expected = of(liquibase);
		org.assertj.core.api.Assertions.assertThat(of(flyway)).containsExactlyElementsOf(expected);
		return expected;
	}

	static List<String> of(DataSource dataSource) throws SQLException {
		try (Connection c = dataSource.getConnection()) {
			List<String> lines = new ArrayList<>();
			DatabaseMetaData metaData = c.getMetaData();
			boolean postgres = metaData.getDatabaseProductName().equals("PostgreSQL");
			String schema = c.getSchema();
			Set<String> tables = new TreeSet<>();
			try (ResultSet rs = metaData.getTables(c.getCatalog(), schema, "%", new String[] { "TABLE" })) {
				while (rs.next()) {
					if (!HISTORY_TABLES.contains(rs.getString("TABLE_NAME").toLowerCase(Locale.ROOT))) {
						tables.add(rs.getString("TABLE_NAME"));
					}
				}
			}
			for (String table : tables) {
				String t = table.toLowerCase(Locale.ROOT);
				lines.add("table " + t);
				try (ResultSet rs = metaData.getColumns(c.getCatalog(), schema, table, "%")) {
					while (rs.next()) {
						lines.add("column " + t + "." + rs.getString("COLUMN_NAME").toLowerCase(Locale.ROOT) + " "
								+ rs.getString("TYPE_NAME") + "(" + rs.getInt("COLUMN_SIZE") + ") nullable="
								+ rs.getString("IS_NULLABLE") + " identity=" + rs.getString("IS_AUTOINCREMENT"));
					}
				}
				Map<Short, String> key = new TreeMap<>();
				try (ResultSet rs = metaData.getPrimaryKeys(c.getCatalog(), schema, table)) {
					while (rs.next()) {
						key.put(rs.getShort("KEY_SEQ"), rs.getString("COLUMN_NAME").toLowerCase(Locale.ROOT));
					}
				}
				lines.add("primary key " + t + " " + key.values());
				Map<String, List<String>> indexes = new TreeMap<>();
				Map<String, Boolean> unique = new TreeMap<>();
				try (ResultSet rs = metaData.getIndexInfo(c.getCatalog(), schema, table, false, false)) {
					while (rs.next()) {
						String name = rs.getString("INDEX_NAME");
						if (name == null) {
							continue;
						}
						indexes.computeIfAbsent(name.toLowerCase(Locale.ROOT), (n) -> new ArrayList<>())
							.add(rs.getString("COLUMN_NAME").toLowerCase(Locale.ROOT));
						unique.put(name.toLowerCase(Locale.ROOT), !rs.getBoolean("NON_UNIQUE"));
					}
				}
				indexes.forEach((name, columns) -> {
					// the primary key's own index is named by each tool differently
					if (!(unique.get(name) && columns.equals(new ArrayList<>(key.values())))) {
						lines.add("index " + t + "." + name + " " + columns + " unique=" + unique.get(name));
					}
				});
			}
			if (postgres) {
				query(c, lines, "check", "SELECT conrelid::regclass || '.' || conname || ' ' || pg_get_constraintdef(oid) "
						+ "FROM pg_constraint WHERE contype = 'c' AND connamespace = 'public'::regnamespace");
				query(c, lines, "function", "SELECT proname || '(' || pg_get_function_identity_arguments(oid) || ') ' "
						+ "|| md5(prosrc) FROM pg_proc WHERE pronamespace = 'public'::regnamespace");
				query(c, lines, "trigger", "SELECT tgrelid::regclass || '.' || tgname || ' ' || pg_get_triggerdef(oid) "
						+ "FROM pg_trigger WHERE NOT tgisinternal");
				query(c, lines, "event trigger", "SELECT evtname || ' ' || evtevent || ' ' || evtfoid::regproc "
						+ "FROM pg_event_trigger");
			}
			else {
				query(c, lines, "check", "SELECT LOWER(t.TABLE_NAME) || '.' || c.CONSTRAINT_NAME || ' ' || c.CHECK_CLAUSE "
						+ "FROM INFORMATION_SCHEMA.CHECK_CONSTRAINTS c JOIN INFORMATION_SCHEMA.TABLE_CONSTRAINTS t "
						+ "ON t.CONSTRAINT_SCHEMA = c.CONSTRAINT_SCHEMA AND t.CONSTRAINT_NAME = c.CONSTRAINT_NAME "
						+ "WHERE c.CONSTRAINT_SCHEMA = SCHEMA()");
				query(c, lines, "alias", "SELECT ROUTINE_NAME || ' ' || EXTERNAL_NAME FROM INFORMATION_SCHEMA.ROUTINES "
						+ "WHERE ROUTINE_SCHEMA = SCHEMA()");
			}
			for (String table : tables) {
				if (table.equalsIgnoreCase("shard_directory_version")) {
					query(c, lines, "row", "SELECT id || ' ' || version FROM " + table);
				}
			}
			return lines;
		}
	}

	private static void query(Connection c, List<String> lines, String kind, String sql) throws SQLException {
		Set<String> found = new TreeSet<>();
		try (Statement statement = c.createStatement(); ResultSet rs = statement.executeQuery(sql)) {
			while (rs.next()) {
				found.add(kind + " " + rs.getString(1));
			}
		}
		lines.addAll(found);
	}

}
