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
		return start(java.util.Map.of());
	}

	/**
	 * Starts a server with the settings of {@link #start()} and more.
	 * @param settings further server settings (name to value), for example {@code max_prepared_transactions}
	 * @return the running server
	 */
	static BenchPostgres start(java.util.Map<String, String> settings) {
		try {
			EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
				.setServerConfig("max_connections", "200")
				.setServerConfig("fsync", "off")
				.setServerConfig("synchronous_commit", "off")
				.setServerConfig("full_page_writes", "off")
				.setServerConfig("shared_buffers", "256MB");
			// track_functions stays at its default (none) while timed; a counting pass switches it on through
			// ALTER SYSTEM, which a command-line setting here would override.
			settings.forEach(builder::setServerConfig);
			return new BenchPostgres(builder.start());
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
	 * CPU time (ns) the server processes of some databases have used so far: the sum of the time on a CPU of every
	 * backend connected to them, from the first field of {@code /proc/<pid>/schedstat} (nanoseconds; see
	 * https://docs.kernel.org/scheduler/sched-stats.html), the server running on this machine. Connections that
	 * closed in between are not counted, so call it around a run whose pools stay open.
	 * @param databases the databases
	 * @return the reader; it returns -1 where {@code /proc} cannot be read (not Linux)
	 */
	java.util.function.LongSupplier backendCpu(String... databases) {
		return () -> {
			long nanos = 0;
			try (Connection c = DriverManager.getConnection(url("postgres"), user(), password());
					java.sql.PreparedStatement ps = c
						.prepareStatement("SELECT pid FROM pg_stat_activity WHERE datname = ANY (?)")) {
				ps.setArray(1, c.createArrayOf("text", databases));
				try (java.sql.ResultSet rs = ps.executeQuery()) {
					while (rs.next()) {
						long cpu = schedstatNanos(rs.getInt(1));
						nanos += Math.max(0, cpu); // a backend that ended since the query is not counted
					}
				}
			}
			catch (SQLException | RuntimeException ex) {
				return -1;
			}
			return nanos;
		};
	}

	/**
	 * CPU time (ns) every process of the server has used so far: the postmaster and all its children (backends of
	 * every database, WAL writer, checkpointer, autovacuum, ...), from {@code /proc/<pid>/schedstat}.
	 * @return the time, or -1 where {@code /proc} cannot be read (not Linux)
	 */
	long serverCpu() {
		try {
			int postmaster = postmasterPid();
			long nanos = Math.max(0, schedstatNanos(postmaster));
			try (java.util.stream.Stream<java.nio.file.Path> procs = java.nio.file.Files.list(java.nio.file.Path.of("/proc"))) {
				for (java.nio.file.Path proc : (Iterable<java.nio.file.Path>) procs::iterator) {
					String name = proc.getFileName().toString();
					if (name.chars().allMatch(Character::isDigit) && parentPid(Integer.parseInt(name)) == postmaster) {
						nanos += Math.max(0, schedstatNanos(Integer.parseInt(name)));
					}
				}
			}
			return nanos;
		}
		catch (IOException | SQLException | RuntimeException ex) {
			return -1;
		}
	}

	private int postmasterPid = -1;

	private synchronized int postmasterPid() throws SQLException {
		if (this.postmasterPid < 0) {
			try (Connection c = DriverManager.getConnection(url("postgres"), user(), password());
					Statement st = c.createStatement();
					java.sql.ResultSet rs = st.executeQuery("SELECT pg_backend_pid()")) {
				rs.next();
				this.postmasterPid = parentPid(rs.getInt(1));
			}
			if (this.postmasterPid < 0) {
				throw new IllegalStateException("no /proc");
			}
		}
		return this.postmasterPid;
	}

	/** @return the process's parent, or -1 if it has ended or {@code /proc} cannot be read */
	private static int parentPid(int pid) {
		try {
			String stat = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/" + pid + "/stat"));
			return Integer.parseInt(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[1]);
		}
		catch (IOException | RuntimeException ex) {
			return -1;
		}
	}

	/** @return the process's time on a CPU so far (ns), or -1 if it has ended or {@code /proc} cannot be read */
	private static long schedstatNanos(int pid) {
		try {
			String schedstat = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/" + pid + "/schedstat"));
			return Long.parseLong(schedstat.substring(0, schedstat.indexOf(' ')));
		}
		catch (IOException | RuntimeException ex) {
			return -1;
		}
	}

	/**
	 * Server-wide counters a counting pass reads before and after (one side runs at a time, so their deltas are that
	 * side's, give or take background work).
	 * @param walBytes bytes of WAL written so far ({@code pg_current_wal_lsn()})
	 * @param nextMultiXactId the next MultiXact id after a {@code CHECKPOINT} ({@code pg_control_checkpoint()})
	 */
	record ServerCounters(long walBytes, long nextMultiXactId) {
	}

	/**
	 * Checkpoints and reads the WAL position and the next MultiXact id. Runs a {@code CHECKPOINT}: call it outside
	 * timed rounds.
	 * @return the counters
	 * @throws IllegalStateException if the server cannot be read
	 */
	ServerCounters serverCounters() {
		try (Connection c = DriverManager.getConnection(url("postgres"), user(), password());
				Statement st = c.createStatement()) {
			st.execute("CHECKPOINT");
			try (java.sql.ResultSet rs = st.executeQuery("SELECT pg_current_wal_lsn() - '0/0'::pg_lsn, "
					+ "(SELECT next_multixact_id::text::bigint FROM pg_control_checkpoint())")) {
				rs.next();
				return new ServerCounters(rs.getLong(1), rs.getLong(2));
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Cannot read the server's counters: " + ex.getMessage(), ex);
		}
	}

	/**
	 * Switches {@code track_functions} between {@code all} and {@code none} for every session ({@code ALTER SYSTEM}
	 * and a configuration reload; a running session applies it before its next command).
	 * @param on whether to count PL/pgSQL calls
	 * @throws IllegalStateException if the server refuses
	 */
	void trackFunctions(boolean on) {
		try (Connection c = DriverManager.getConnection(url("postgres"), user(), password());
				Statement st = c.createStatement()) {
			st.execute("ALTER SYSTEM SET track_functions = '" + (on ? "all" : "none") + "'");
			st.execute("SELECT pg_reload_conf()");
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Cannot set track_functions: " + ex.getMessage(), ex);
		}
		// The postmaster signals the sessions once it has reloaded; a new session sees the new value from then on.
		long deadline = System.nanoTime() + 10_000_000_000L;
		while (!(on ? "all" : "none").equals(setting("track_functions"))) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("track_functions did not change within 10 s");
			}
			pause();
		}
	}

	/**
	 * Resets the statistics of a database ({@code pg_stat_reset()}).
	 * @param database the database
	 * @throws IllegalStateException if the server refuses
	 */
	void resetStatistics(String database) {
		try (Connection c = DriverManager.getConnection(url(database), user(), password());
				Statement st = c.createStatement()) {
			st.execute("SELECT pg_stat_reset()");
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Cannot reset statistics of " + database + ": " + ex.getMessage(), ex);
		}
	}

	/**
	 * @param name a server setting
	 * @return its value in force ({@code current_setting})
	 * @throws IllegalStateException if the server cannot be read
	 */
	String setting(String name) {
		try (Connection c = DriverManager.getConnection(url("postgres"), user(), password());
				java.sql.PreparedStatement ps = c.prepareStatement("SELECT current_setting(?)")) {
			ps.setString(1, name);
			try (java.sql.ResultSet rs = ps.executeQuery()) {
				rs.next();
				return rs.getString(1);
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Cannot read " + name + ": " + ex.getMessage(), ex);
		}
	}

	/** Waits 50 ms between two polls of the server. */
	private static void pause() {
		try {
			Thread.sleep(50);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("interrupted while polling the server", ex);
		}
	}

	/**
	 * Counts, for the notes: the PL/pgSQL functions the server ran in one database (the fence's, with
	 * {@code track_functions = all}) per committed transaction of that database since its statistics were reset, and
	 * their self time. Sessions report their counts to the statistics at most once a second, calls and commits
	 * together, so the ratio holds for a run whose sessions all ran with {@code track_functions} on for well over a
	 * second before the reset and after it.
	 * @param database the database
	 * @return for example "shard_fence_begin 1.00 calls (14.6 us self each)", joined with commas; empty if none ran
	 */
	String functionCallsPerTransaction(String database) {
		StringBuilder out = new StringBuilder();
		try (Connection c = DriverManager.getConnection(url(database), user(), password());
				Statement st = c.createStatement();
				java.sql.ResultSet rs = st.executeQuery("SELECT f.funcname, f.calls::float8 / d.xact_commit, "
						+ "1000 * f.self_time / f.calls FROM pg_stat_user_functions f, pg_stat_database d "
						+ "WHERE d.datname = current_database() AND f.calls > 0 AND d.xact_commit > 0 "
						+ "ORDER BY f.funcname")) {
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
