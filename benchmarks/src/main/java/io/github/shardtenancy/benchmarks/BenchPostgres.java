package io.github.shardtenancy.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

/**
 * One embedded PostgreSQL server (binaries version from the root pom's BOM) for every PostgreSQL figure, with one
 * database per purpose. Durability is switched off ({@code fsync}, {@code synchronous_commit}) for both sides alike,
 * so that commits are not disk-bound and any per-transaction overhead shows rather than hides behind an fsync.
 * Not thread-safe to create databases concurrently; connections are.
 */
final class BenchPostgres implements AutoCloseable {

	private final EmbeddedPostgres postgres;

	private BenchPostgres(EmbeddedPostgres postgres) {
		this.postgres = postgres;
	}

	static BenchPostgres start() {
		try {
			return new BenchPostgres(EmbeddedPostgres.builder()
				.setServerConfig("max_connections", "200")
				.setServerConfig("fsync", "off")
				.setServerConfig("synchronous_commit", "off")
				.setServerConfig("full_page_writes", "off")
				.setServerConfig("shared_buffers", "256MB")
				.setServerConfig("track_functions", "all") // PL/pgSQL calls per transaction, for the notes
				.start());
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot start embedded PostgreSQL", ex);
		}
	}

	String url(String database) {
		return "jdbc:postgresql://localhost:" + this.postgres.getPort() + "/" + database;
	}

	String user() {
		return "postgres";
	}

	String password() {
		return "postgres";
	}

	/**
	 * Creates a database.
	 * @param name a plain identifier
	 * @return its JDBC URL
	 */
	String createDatabase(String name) {
		try (Connection c = DriverManager.getConnection(url("postgres"), user(), password());
				Statement st = c.createStatement()) {
			st.execute("CREATE DATABASE " + name);
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Cannot create database " + name + ": " + ex.getMessage(), ex);
		}
		return url(name);
	}

	/** The role the library's PostgreSQL shard connects as: no superuser, no BYPASSRLS; its password is its name. */
	static final String APP_ROLE = "bench_app";

	/**
	 * Creates a database owned by {@link #APP_ROLE} (created on first use), so that the application's migrations
	 * create its tables as that role, the way an application owns its schema.
	 * @param name a plain identifier
	 * @return its JDBC URL
	 */
	String createAppDatabase(String name) {
		try (Connection c = DriverManager.getConnection(url("postgres"), user(), password());
				Statement st = c.createStatement()) {
			st.execute("DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '" + APP_ROLE + "') THEN "
					+ "CREATE ROLE " + APP_ROLE + " LOGIN PASSWORD '" + APP_ROLE + "' NOSUPERUSER NOBYPASSRLS; "
					+ "END IF; END $$");
			st.execute("CREATE DATABASE " + name + " OWNER " + APP_ROLE);
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Cannot create database " + name + ": " + ex.getMessage(), ex);
		}
		return url(name);
	}

	HikariDataSource pool(String database, int size) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(url(database));
		config.setUsername(user());
		config.setPassword(password());
		config.setMaximumPoolSize(size);
		config.setPoolName("bench-" + database);
		return new HikariDataSource(config);
	}

	/**
	 * CPU time (ns) the server processes of one database have used so far: the sum of user and system time of every
	 * backend connected to it, read from {@code /proc/<pid>/stat} (the server runs on this machine). Connections that
	 * closed in between are not counted, so call it around a run whose pools stay open.
	 * @param database the database
	 * @return the reader; it returns -1 where {@code /proc} cannot be read (not Linux)
	 */
	java.util.function.LongSupplier backendCpu(String database) {
		long nanosPerTick = 10_000_000L; // USER_HZ is 100 on Linux
		return () -> {
			long ticks = 0;
			try (Connection c = DriverManager.getConnection(url("postgres"), user(), password());
					java.sql.PreparedStatement ps = c.prepareStatement("SELECT pid FROM pg_stat_activity WHERE datname = ?")) {
				ps.setString(1, database);
				try (java.sql.ResultSet rs = ps.executeQuery()) {
					while (rs.next()) {
						String stat = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/" + rs.getInt(1) + "/stat"));
						String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
						ticks += Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
					}
				}
			}
			catch (SQLException | IOException | RuntimeException ex) {
				return -1;
			}
			return ticks * nanosPerTick;
		};
	}

	/**
	 * Counts, for the notes: the PL/pgSQL functions the server ran in one database (the fence's, with
	 * {@code track_functions = all}) per committed transaction of that database, and their wall-clock time.
	 * @param database the database
	 * @return for example "shard_fence_begin 1.00 calls (14.6 us)", joined with commas; empty if none ran
	 */
	String functionCallsPerTransaction(String database) {
		StringBuilder out = new StringBuilder();
		try (Connection c = DriverManager.getConnection(url(database), user(), password());
				Statement st = c.createStatement();
				java.sql.ResultSet rs = st.executeQuery("SELECT f.funcname, f.calls::float8 / d.xact_commit, "
						+ "1000 * f.self_time / f.calls FROM pg_stat_user_functions f, pg_stat_database d "
						+ "WHERE d.datname = current_database() AND f.calls > 100 ORDER BY f.funcname")) {
			while (rs.next()) {
				out.append(out.isEmpty() ? "" : ", ")
					.append(String.format(java.util.Locale.ROOT, "%s %.2f calls (%.1f us self each)", rs.getString(1),
							rs.getDouble(2), rs.getDouble(3)));
			}
		}
		catch (SQLException ex) {
			return "";
		}
		return out.toString();
	}

	static void close(DataSource dataSource) {
		if (dataSource instanceof HikariDataSource pool) {
			pool.close();
		}
	}

	@Override
	public void close() {
		try {
			this.postgres.close();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
