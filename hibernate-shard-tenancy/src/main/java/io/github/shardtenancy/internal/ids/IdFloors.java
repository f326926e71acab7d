package io.github.shardtenancy.internal.ids;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

import io.github.shardtenancy.IdGenerationException;
import io.github.shardtenancy.internal.topology.Topology;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The largest id already in a table on the shards, which an {@code Integer} id counter ({@link IdBlocks}) is raised
 * above: {@code SELECT MAX(column) FROM table}, run by each shard's database under the maintenance mark
 * ({@link io.github.shardtenancy.spi.FenceDialect#beginMaintenance}), which row-level security lets read every
 * tenant's rows, and rolled back.
 *
 * <p>The table is looked up in the connection's current schema through JDBC's {@link DatabaseMetaData}, by the
 * counter's name in any letter case (a counter is keyed by the lower-case table name), and written quoted as the
 * database spells it. The id column is the one Hibernate maps the id to, when known; otherwise the table's primary key
 * if it has one column, else a column named {@code id}. A table missing on a shard (or with neither) has no rows to
 * avoid there: 0.
 *
 * <p>Thread-safe: each call borrows its own connection of each shard.
 */
final class IdFloors {

	private static final Logger log = LoggerFactory.getLogger(IdFloors.class);

	private final Topology topology;

	/** @param topology the shards of this instance */
	IdFloors(Topology topology) {
		this.topology = Objects.requireNonNull(topology, "topology");
	}

	/**
	 * @param table the table (the counter's name)
	 * @param column the id column, or {@code null} for the table's primary key
	 * @return the largest id in the table over every shard of the topology; 0 if no shard has a row
	 * @throws IdGenerationException if a shard could not be read
	 */
	long largest(String table, @Nullable String column) {
		long largest = 0;
		for (String shardId : this.topology.shardIds().stream().sorted().toList()) {
			Optional<Topology.Shard> shard = this.topology.find(shardId);
			if (shard.isPresent()) {
				largest = Math.max(largest, largest(shard.get(), table, column));
			}
		}
		return largest;
	}

	/**
	 * @param shard a shard
	 * @param table the table (the counter's name)
	 * @param column the id column, or {@code null} for the table's primary key
	 * @return the largest id in the table on that shard; 0 if it has no row, or no such table
	 * @throws IdGenerationException if the shard could not be read
	 */
	long largest(Topology.Shard shard, String table, @Nullable String column) {
		try (Connection c = shard.dataSource().getConnection()) {
			c.setAutoCommit(true);
			DatabaseMetaData metaData = c.getMetaData();
			Found found = findTable(metaData, c, table);
			if (found == null) {
				return 0;
			}
			String idColumn = findColumn(metaData, found, column);
			if (idColumn == null) {
				log.warn("Table {} on shard {} has no column {}: no id floor read there for its Integer id counter",
						found.name(), shard.id(), column != null ? column : "of a one-column primary key, nor 'id'");
				return 0;
			}
			String quote = metaData.getIdentifierQuoteString().strip();
			String sql = "SELECT MAX(" + quoted(quote, idColumn) + ") FROM "
					+ (found.schema() != null ? quoted(quote, found.schema()) + "." : "") + quoted(quote, found.name());
			shard.dialect().beginMaintenance(c);
			try (PreparedStatement ps = c.prepareStatement(sql); ResultSet rs = ps.executeQuery()) {
				long max = rs.next() ? rs.getLong(1) : 0;
				return rs.wasNull() ? 0 : max;
			}
			finally {
				try {
					c.rollback();
				}
				finally {
					c.setAutoCommit(true);
				}
			}
		}
		catch (SQLException ex) {
			throw new IdGenerationException("The largest id of table " + table + " on shard " + shard.id() + " could "
					+ "not be read, so its Integer id counter is not raised above the rows already there and no id is "
					+ "handed out from it: " + ex.getMessage(), ex);
		}
	}

	private record Found(@Nullable String catalog, @Nullable String schema, String name) {
	}

	/** @return the table of that name in any case in the current schema: the exact spelling first, or {@code null} */
	private static @Nullable Found findTable(DatabaseMetaData metaData, Connection c, String table)
			throws SQLException {
		List<Found> candidates = new ArrayList<>();
		// The name in the cases the database may store it in.
		for (String name : List.of(table, table.toLowerCase(Locale.ROOT), table.toUpperCase(Locale.ROOT))) {
			try (ResultSet rs = metaData.getTables(c.getCatalog(), c.getSchema(), escaped(metaData, name), null)) {
				while (rs.next()) {
					Found found = new Found(rs.getString("TABLE_CAT"), rs.getString("TABLE_SCHEM"),
							rs.getString("TABLE_NAME"));
					if (found.name().equalsIgnoreCase(table) && !candidates.contains(found)) {
						candidates.add(found);
					}
				}
			}
		}
		if (candidates.isEmpty()) {
			// Spelled in mixed case (a quoted name): every table of the schema, compared ignoring case.
			try (ResultSet rs = metaData.getTables(c.getCatalog(), c.getSchema(), "%", null)) {
				while (rs.next()) {
					if (rs.getString("TABLE_NAME").equalsIgnoreCase(table)) {
						candidates.add(new Found(rs.getString("TABLE_CAT"), rs.getString("TABLE_SCHEM"),
								rs.getString("TABLE_NAME")));
					}
				}
			}
		}
		for (Found found : candidates) {
			if (found.name().equals(table)) {
				return found;
			}
		}
		return candidates.isEmpty() ? null : candidates.get(0);
	}

	/**
	 * @return the id column as the database spells it: {@code column} in any case, or without it the one-column
	 * primary key, else {@code id}; {@code null} if the table has none of them
	 */
	private static @Nullable String findColumn(DatabaseMetaData metaData, Found table, @Nullable String column)
			throws SQLException {
		if (column == null) {
			List<String> key = new ArrayList<>();
			try (ResultSet rs = metaData.getPrimaryKeys(table.catalog(), table.schema(), table.name())) {
				while (rs.next()) {
					key.add(rs.getString("COLUMN_NAME"));
				}
			}
			if (key.size() == 1) {
				return key.get(0);
			}
		}
		String wanted = column != null ? column : "id";
		String found = null;
		try (ResultSet rs = metaData.getColumns(table.catalog(), table.schema(), escaped(metaData, table.name()),
				null)) {
			while (rs.next()) {
				String name = rs.getString("COLUMN_NAME");
				if (name.equals(wanted)) {
					return name;
				}
				if (found == null && name.equalsIgnoreCase(wanted)) {
					found = name;
				}
			}
		}
		return found;
	}

	/** @return the name as a {@link DatabaseMetaData} pattern that matches only itself (wildcards escaped) */
	private static String escaped(DatabaseMetaData metaData, String name) throws SQLException {
		String escape = metaData.getSearchStringEscape();
		return (escape == null || escape.isEmpty()) ? name
				: name.replace(escape, escape + escape).replace("_", escape + "_").replace("%", escape + "%");
	}

	private static String quoted(String quote, String identifier) {
		return quote.isEmpty() ? identifier : quote + identifier.replace(quote, quote + quote) + quote;
	}

}
