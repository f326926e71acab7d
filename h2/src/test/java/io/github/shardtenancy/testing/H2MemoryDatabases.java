package io.github.shardtenancy.testing;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

/**
 * The in-memory H2 databases of one test, named after it (and a random suffix, so that no two tests share one), each
 * with a pool; {@link #close()} closes the pools and shuts the databases down. Not thread-safe: opened and closed by
 * the test.
 */
public final class H2MemoryDatabases implements AutoCloseable {

	private final String name;

	private final List<HikariDataSource> pools = new ArrayList<>();

	private final List<String> urls = new ArrayList<>();

	/** @param prefix the start of every database's name */
	public H2MemoryDatabases(String prefix) {
		this.name = prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
	}

	/**
	 * @param database the database's name within the test
	 * @param size the pool's maximum size
	 * @return a pool on a database of its own, kept until {@link #close()} ({@code DB_CLOSE_DELAY=-1}), waiting up to
	 * 10 s for a lock
	 */
	public HikariDataSource pool(String database, int size) {
		String url = "jdbc:h2:mem:" + this.name + "-" + database + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000";
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(url);
		config.setMaximumPoolSize(size);
		HikariDataSource pool = new HikariDataSource(config);
		this.pools.add(pool);
		this.urls.add(url);
		return pool;
	}

	/** Closes the pools and shuts the databases down. */
	@Override
	public void close() {
		this.pools.forEach(HikariDataSource::close);
		for (String url : this.urls) {
			try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
				s.execute("SHUTDOWN");
			}
			catch (SQLException ex) {
				// already gone
			}
		}
	}

}
