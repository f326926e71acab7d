package io.github.shardtenancy.postgresql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.github.shardtenancy.spi.DialectSql;

/**
 * The check of a table's foreign keys after the mover wrote rows into it with {@code session_replication_role =
 * replica}, which switches the keys' own per-row checks off: the referenced rows are locked {@code FOR KEY SHARE}
 * (as the keys' own check locks them, so a transaction deleting one is waited for), then the written rows whose
 * referenced row is missing are counted; any fails with SQLState 23503, as the key's own check would. Used by
 * {@link PostgresBulkCopier} after its {@code COPY} and by {@link PostgresFenceDialect#checkForeignKeys} after the
 * multi-row {@code INSERT} copy and the catch-up. Stateless.
 */
final class ForeignKeyCheck {

	private static final String FOREIGN_KEYS = DialectSql.load(ForeignKeyCheck.class, "copy-foreign-keys");

	private static final String LOCK_PARENTS = DialectSql.load(ForeignKeyCheck.class, "copy-lock-parents");

	private static final String MISSING_PARENTS = DialectSql.load(ForeignKeyCheck.class, "copy-missing-parents");

	private ForeignKeyCheck() {
	}

	/** The written rows to check: a query of the target, built only for a table that has foreign keys. */
	@FunctionalInterface
	interface WrittenRows {

		/**
		 * @param parameters receives the values of the query's {@code ?}, in order
		 * @return a {@code SELECT} of the written rows on the target (their foreign-key columns at least)
		 * @throws SQLException if building it needs the database and that fails
		 */
		String select(List<Object> parameters) throws SQLException;

	}

	/**
	 * @param target a connection to the shard, in a transaction
	 * @param table the table written
	 * @param written the written rows, asked for only if the table has foreign keys (one catalog query otherwise)
	 * @throws SQLException with SQLState 23503 if a written row references a missing row
	 */
	static void check(Connection target, String table, WrittenRows written) throws SQLException {
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
		if (keys.isEmpty()) {
			return;
		}
		List<Object> parameters = new ArrayList<>();
		String rows = written.select(parameters);
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
					"childColumns", key.childColumns(), "rows", rows, "childNotNull", String.join(" AND ", notNull),
					"join", String.join(" AND ", join));
			try (PreparedStatement ps = target.prepareStatement(DialectSql.fill(LOCK_PARENTS, names))) {
				bind(ps, parameters);
				ps.execute();
			}
			try (PreparedStatement ps = target.prepareStatement(DialectSql.fill(MISSING_PARENTS, names))) {
				bind(ps, parameters);
				try (ResultSet rs = ps.executeQuery()) {
					rs.next();
					long missing = rs.getLong(1);
					if (missing > 0) {
						throw new SQLException("The mover's writes into " + table + " left " + missing
								+ " row(s) whose foreign key " + key.name() + " references no row of " + key.parent()
								+ " on the target: the tenant's rows reference rows that are not on that shard",
								"23503");
					}
				}
			}
		}
	}

	/** Binds the tenant and the written rows' keys, text untyped ({@link PostgresFenceDialect#bindUntyped}). */
	private static void bind(PreparedStatement ps, List<Object> parameters) throws SQLException {
		for (int i = 0; i < parameters.size(); i++) {
			PostgresFenceDialect.bindUntyped(ps, i + 1, parameters.get(i));
		}
	}

}
