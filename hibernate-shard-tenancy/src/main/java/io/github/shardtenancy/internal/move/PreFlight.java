package io.github.shardtenancy.internal.move;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

import io.github.shardtenancy.MoveException;
import io.github.shardtenancy.TenantTable;
import io.github.shardtenancy.internal.topology.Topology;
import org.jspecify.annotations.Nullable;

/**
 * The checks a move runs on both shards before it records anything ({@link io.github.shardtenancy.TenantMover#check}):
 * the columns of every tenant table on the source and the target, and the tenant's keys looked up on the target.
 * Values are compared by the target database: the source's key values are bound into the target's query, never
 * compared in Java. Stateless; thread-safe.
 */
final class PreFlight {

	/** Key tuples looked up on the target per query. */
	static final int KEYS_PER_QUERY = 500;

	/** Rows of other tenants named per clashing key, at most, in a problem's sentence. */
	private static final int EXAMPLES = 3;

	private PreFlight() {
	}

	/** A column as the database's metadata describes it. */
	record Column(String type, boolean required) {
	}

	/**
	 * Compares the columns of each table between the shards: a column of the source missing on the target or of
	 * another type there, and a column only the target has that is {@code NOT NULL} without a default (no copied row
	 * fills it).
	 * @param source the tenant's shard and its plans
	 * @param target the target and its plans, in the same order of tables
	 * @return one sentence per difference, naming the table, the column and both shards
	 * @throws SQLException if the metadata cannot be read
	 */
	static List<String> drift(Topology.Shard source, List<TablePlan> sourcePlans, Topology.Shard target,
			List<TablePlan> targetPlans) throws SQLException {
		List<String> problems = new ArrayList<>();
		Map<String, Map<String, Column>> from = columns(source, sourcePlans);
		Map<String, Map<String, Column>> to = columns(target, targetPlans);
		for (TablePlan plan : sourcePlans) {
			String table = plan.sqlName();
			Map<String, Column> there = to.getOrDefault(table, Map.of());
			from.getOrDefault(table, Map.of()).forEach((name, column) -> {
				Column other = there.get(name);
				if (other == null) {
					problems.add("Table " + table + ": column " + name + " (" + column.type() + ") is on source shard '"
							+ source.id() + "' but not on target shard '" + target.id() + "'; the copy would fail: "
							+ "migrate the target's schema first");
				}
				else if (!other.type().equalsIgnoreCase(column.type())) {
					problems.add("Table " + table + ": column " + name + " is " + column.type() + " on source shard '"
							+ source.id() + "' but " + other.type() + " on target shard '" + target.id()
							+ "'; give both shards the same schema before moving");
				}
			});
			there.forEach((name, column) -> {
				if (column.required() && !from.getOrDefault(table, Map.of()).containsKey(name)) {
					problems.add("Table " + table + ": column " + name + " of target shard '" + target.id()
							+ "' is NOT NULL without a default and not on source shard '" + source.id()
							+ "'; the target would refuse every copied row: migrate the source's schema first or give "
							+ "the column a default");
				}
			});
		}
		for (TablePlan plan : sourcePlans) {
			targetPlans.stream()
				.filter(t -> t.sqlName().equals(plan.sqlName()))
				.findFirst()
				.filter(t -> !keyNames(t).equals(keyNames(plan)))
				.ifPresent(t -> problems.add("Table " + plan.sqlName() + ": primary key " + keyNames(plan)
						+ " on source shard '" + source.id() + "' but " + keyNames(t) + " on target shard '"
						+ target.id() + "'; give both shards the same schema before moving"));
		}
		return problems;
	}

	private static List<String> keyNames(TablePlan plan) {
		return plan.keys().stream().map(TablePlan.KeyColumn::name).toList();
	}

	/** @return per table (its SQL name), its columns by name in ordinal order */
	private static Map<String, Map<String, Column>> columns(Topology.Shard shard, List<TablePlan> plans)
			throws SQLException {
		Map<String, Map<String, Column>> tables = new LinkedHashMap<>();
		try (Connection c = shard.dataSource().getConnection()) {
			DatabaseMetaData meta = c.getMetaData();
			for (TablePlan plan : plans) {
				TreeMap<Integer, Map.Entry<String, Column>> ordered = new TreeMap<>();
				try (ResultSet rs = meta.getColumns(null, schema(meta, plan.table()), plan.name(), null)) {
					while (rs.next()) {
						boolean generated = "YES".equals(rs.getString("IS_GENERATEDCOLUMN"))
								|| "YES".equals(rs.getString("IS_AUTOINCREMENT"));
						boolean required = rs.getInt("NULLABLE") == DatabaseMetaData.columnNoNulls
								&& rs.getString("COLUMN_DEF") == null && !generated;
						ordered.put(rs.getInt("ORDINAL_POSITION"), Map.entry(rs.getString("COLUMN_NAME"),
								new Column(rs.getString("TYPE_NAME"), required)));
					}
				}
				Map<String, Column> columns = new LinkedHashMap<>();
				ordered.values().forEach(e -> columns.put(e.getKey(), e.getValue()));
				tables.put(plan.sqlName(), columns);
			}
		}
		return tables;
	}

	private static String schema(DatabaseMetaData meta, TenantTable table) throws SQLException {
		int dot = table.table().indexOf('.');
		return dot < 0 ? null : TablePlan.normalise(meta, table.table().substring(0, dot));
	}

	/**
	 * Looks the tenant's primary keys, and its values of each unique index of the target that does not hold the
	 * tenant column, up among the target's rows of other tenants: the copy would fail on each that is there. A partial
	 * or expression index is not looked up; a key with a NULL part cannot clash.
	 * @return one sentence per table and key that clashes, with the number of clashing rows and examples
	 * @throws SQLException on a database error of either shard
	 */
	static List<String> clashes(Topology.Shard source, Topology.Shard target, String tenantId, List<TablePlan> plans)
			throws SQLException {
		List<String> problems = new ArrayList<>();
		try (Connection from = source.dataSource().getConnection();
				Connection to = target.dataSource().getConnection()) {
			for (TablePlan plan : plans) {
				for (List<String> key : uniqueKeys(to, plan)) {
					MoveSql.acrossTenants(source, from, () -> MoveSql.acrossTenants(target, to, () -> {
						clash(from, to, tenantId, plan, key, source, target).ifPresent(problems::add);
						return null;
					}));
				}
			}
		}
		return problems;
	}

	/** @return the primary key first, then each unique index of the target without the tenant column */
	private static List<List<String>> uniqueKeys(Connection target, TablePlan plan) throws SQLException {
		List<List<String>> keys = new ArrayList<>();
		keys.add(keyNames(plan));
		DatabaseMetaData meta = target.getMetaData();
		Map<String, TreeMap<Integer, String>> indexes = new LinkedHashMap<>();
		List<String> skipped = new ArrayList<>();
		try (ResultSet rs = meta.getIndexInfo(null, schema(meta, plan.table()), plan.name(), true, false)) {
			while (rs.next()) {
				String index = rs.getString("INDEX_NAME");
				String column = rs.getString("COLUMN_NAME");
				if (index == null) {
					continue;
				}
				if (column == null || rs.getString("FILTER_CONDITION") != null
						|| plan.columns().stream().noneMatch(column::equals)) {
					skipped.add(index);
				}
				indexes.computeIfAbsent(index, i -> new TreeMap<>()).put(rs.getInt("ORDINAL_POSITION"), column);
			}
		}
		indexes.forEach((index, columns) -> {
			List<String> names = List.copyOf(columns.values().stream().filter(Objects::nonNull).toList());
			if (!skipped.contains(index) && names.stream().noneMatch(plan.tenantColumn()::equalsIgnoreCase)
					&& !keys.contains(names)) {
				keys.add(names);
			}
		});
		return keys;
	}

	private static Optional<String> clash(Connection from, Connection to, String tenantId, TablePlan plan,
			List<String> key, Topology.Shard source, Topology.Shard target) throws SQLException {
		String columns = String.join(", ", key);
		String notNull = String.join(" AND ", key.stream().map(k -> k + " IS NOT NULL").toList());
		// With the dialect's key list, the values travel as the source writes them as text and the target reads them
		// with its columns' types (an enum, a domain); otherwise as the driver's objects.
		String keyList = target.dialect().keyList(to, plan.sqlName(), key);
		String selected = keyList == null ? columns
				: String.join(", ", key.stream().map(k -> k + "::text").toList());
		long clashing = 0;
		List<String> examples = new ArrayList<>();
		try (PreparedStatement read = from.prepareStatement("SELECT " + selected + " FROM " + plan.sqlName()
				+ " WHERE " + plan.tenantColumn() + " = ? AND " + notNull)) {
			read.setString(1, tenantId);
			read.setFetchSize(KEYS_PER_QUERY);
			try (ResultSet rs = read.executeQuery()) {
				List<Object[]> batch = new ArrayList<>(KEYS_PER_QUERY);
				boolean more = true;
				while (more) {
					more = rs.next();
					if (more) {
						Object[] values = new Object[key.size()];
						for (int i = 0; i < values.length; i++) {
							values[i] = keyList == null ? rs.getObject(i + 1) : rs.getString(i + 1);
						}
						batch.add(values);
					}
					if (batch.size() == KEYS_PER_QUERY || (!more && !batch.isEmpty())) {
						clashing += lookUp(to, tenantId, plan, key, keyList, batch, examples);
						batch.clear();
					}
				}
			}
		}
		if (clashing == 0) {
			return Optional.empty();
		}
		return Optional.of("Table " + plan.sqlName() + ": " + clashing + " row(s) of other tenants on target "
				+ "shard '" + target.id() + "' have the same (" + columns + ") as rows of tenant '" + tenantId
				+ "' on source shard '" + source.id() + "', e.g. " + String.join("; ", examples)
				+ "; the copy would fail on the target's unique key: keys must be unique across shards "
				+ "(ShardTenancy.nextId(), @ShardSafeId)");
	}

	/**
	 * @param keyList the target dialect's key list of the key's columns ({@code text} arrays), or {@code null}: the
	 * batch's values are bound one by one
	 * @return how many of the batch's keys the target holds for other tenants; adds a few to the examples
	 */
	private static long lookUp(Connection to, String tenantId, TablePlan plan, List<String> key,
			@Nullable String keyList, List<Object[]> batch, List<String> examples) throws SQLException {
		String tuple = key.size() == 1 ? "?" : "(" + String.join(", ", key.stream().map(k -> "?").toList()) + ")";
		String target = key.size() == 1 ? key.get(0) : "(" + String.join(", ", key) + ")";
		String sql = "SELECT " + String.join(", ", key) + ", " + plan.tenantColumn() + " FROM " + plan.sqlName()
				+ " WHERE (" + plan.tenantColumn() + " <> ? OR " + plan.tenantColumn() + " IS NULL) AND " + target
				+ " IN (" + (keyList != null ? keyList
						: String.join(", ", Collections.nCopies(batch.size(), tuple))) + ")";
		long found = 0;
		try (PreparedStatement ps = to.prepareStatement(sql)) {
			ps.setString(1, tenantId);
			if (keyList == null) {
				MoveSql.bindRows(ps, batch, 2);
			}
			else {
				MoveSql.bindKeyList(to, ps, 2, key.size(), batch);
			}
			try (ResultSet rs = ps.executeQuery()) {
				while (rs.next()) {
					found++;
					if (examples.size() < EXAMPLES) {
						List<String> values = new ArrayList<>();
						for (int i = 1; i <= key.size(); i++) {
							values.add(key.get(i - 1) + "=" + rs.getString(i));
						}
						examples.add(String.join(", ", values) + " (tenant " + rs.getString(key.size() + 1) + ")");
					}
				}
			}
		}
		return found;
	}

	/**
	 * Counts the tenant's rows on the source per table and estimates their bytes
	 * ({@link io.github.shardtenancy.spi.FenceDialect#tenantStorage(Connection, String, String, String,
	 * io.github.shardtenancy.spi.FenceDialect.TenantStorageSink)}).
	 * @param into filled with the rows per table, in the plans' order
	 * @return the bytes, or {@code -1} if the database gives no estimate for some table
	 * @throws SQLException on a database error
	 */
	static long size(Topology.Shard source, String tenantId, List<TablePlan> plans, Map<String, Long> into)
			throws SQLException {
		long[] bytes = {0};
		try (Connection c = source.dataSource().getConnection()) {
			MoveSql.acrossTenants(source, c, () -> {
				for (TablePlan plan : plans) {
					source.dialect().tenantStorage(c, plan.sqlName(), plan.tenantColumn(), tenantId, (t, rows, b) -> {
						into.put(plan.sqlName(), rows);
						bytes[0] = (bytes[0] < 0 || b < 0) ? -1 : bytes[0] + b;
					});
				}
				return null;
			});
		}
		return bytes[0];
	}

	/** @return a MoveException for a shard whose schema or rows could not be read */
	static MoveException unreadable(Topology.Shard shard, String tenantId, SQLException ex) {
		return new MoveException("Cannot read the tenant tables of shard '" + shard.id() + "' to check the move of "
				+ "tenant '" + tenantId + "': " + ex.getMessage(), tenantId, shard.id(), -1, ex);
	}

}
