package io.github.shardtenancy.testing.pg;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

/**
 * An embedded PostgreSQL server of one test class, on a free port and in a temporary data directory, with the pools
 * and databases the test asks for; {@link #close()} closes the pools, stops the server and deletes the directory.
 * Not thread-safe: set up and closed by the test class.
 */
public final class ScratchPostgres implements AutoCloseable {

	private final Path dataDirectory;

	private final EmbeddedPostgresServer server;

	private final List<HikariDataSource> pools = new ArrayList<>();

	private ScratchPostgres(Path dataDirectory, EmbeddedPostgresServer server) {
		this.dataDirectory = dataDirectory;
		this.server = server;
	}

	/**
	 * @param name the server's name, also the prefix of its data directory and of its pools' names
	 * @return a started server
	 * @throws UncheckedIOException if no port or directory is available
	 */
	public static ScratchPostgres start(String name) {
		ScratchPostgres scratch;
		try (ServerSocket socket = new ServerSocket(0)) {
			Path dataDirectory = Files.createTempDirectory("pg-" + name);
			scratch = new ScratchPostgres(dataDirectory,
					new EmbeddedPostgresServer(name, dataDirectory, socket.getLocalPort()));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		// started once the probe socket is closed, so that the server can bind the port
		scratch.server.start();
		return scratch;
	}

	/** @return the server */
	public PostgresServer server() {
		return this.server;
	}

	/**
	 * @param size the pool's maximum size
	 * @return a pool on the server's {@code postgres} database, closed with this
	 */
	public HikariDataSource pool(int size) {
		return pool(this.server.jdbcUrl(), size);
	}

	/**
	 * Creates a database and returns a pool on it.
	 * @param database the new database's name (an SQL identifier)
	 * @param size the pool's maximum size
	 * @return a pool on the new database, closed with this
	 * @throws SQLException if the database cannot be created
	 */
	public HikariDataSource createDatabase(String database, int size) throws SQLException {
		try (Connection c = DriverManager.getConnection(this.server.jdbcUrl(), this.server.user(),
				this.server.password()); Statement s = c.createStatement()) {
			s.execute("CREATE DATABASE " + database);
		}
		return pool(this.server.jdbcUrl().replace("/postgres", "/" + database), size);
	}

	/**
	 * @param database a database of this server (from {@link #createDatabase})
	 * @param role a login role whose password is its name
	 * @param size the pool's maximum size
	 * @return a pool on the database as that role, closed with this
	 */
	public HikariDataSource poolAs(String database, String role, int size) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(this.server.jdbcUrl().replace("/postgres", "/" + database));
		config.setUsername(role);
		config.setPassword(role);
		config.setMaximumPoolSize(size);
		config.setPoolName(this.server.name() + "-" + this.pools.size());
		HikariDataSource pool = new HikariDataSource(config);
		this.pools.add(pool);
		return pool;
	}

	/**
	 * @param pool a pool of this server (from {@link #createDatabase})
	 * @param size the new pool's maximum size
	 * @return settings for another pool on the same database, to hand to {@code ShardTenancy.builder()}
	 */
	public static HikariConfig configLike(HikariDataSource pool, int size) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(pool.getJdbcUrl());
		config.setUsername(pool.getUsername());
		config.setPassword(pool.getPassword());
		config.setMaximumPoolSize(size);
		return config;
	}

	private HikariDataSource pool(String url, int size) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(url);
		config.setUsername(this.server.user());
		config.setPassword(this.server.password());
		config.setMaximumPoolSize(size);
		config.setPoolName(this.server.name() + "-" + this.pools.size());
		HikariDataSource pool = new HikariDataSource(config);
		this.pools.add(pool);
		return pool;
	}

	/**
	 * @param observer a connection of the server, not taking part in the locks
	 * @return how many sessions of the server wait for a heavyweight lock (their wait event type is {@code Lock}; a
	 * row lock wait shows as {@code transactionid} or {@code tuple})
	 * @throws SQLException on a database error
	 */
	public static int sessionsWaitingForLock(Connection observer) throws SQLException {
		try (PreparedStatement ps = observer
			.prepareStatement("SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'");
				ResultSet rs = ps.executeQuery()) {
			rs.next();
			return rs.getInt(1);
		}
	}

	/**
	 * Closes the pools, stops the server and deletes its data directory.
	 * @throws UncheckedIOException if the directory cannot be deleted
	 */
	@Override
	public void close() {
		this.pools.forEach(HikariDataSource::close);
		this.server.stop();
		try (Stream<Path> paths = Files.walk(this.dataDirectory)) {
			for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
				Files.deleteIfExists(path);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
