package io.github.shardtenancy.testing.h2;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

/** In-memory H2 shards of the tests. Stateless. */
public final class H2Shards {

	private H2Shards() {
	}

	/**
	 * @param name the database's name prefix (a random suffix makes it unique) and the pool's name
	 * @return a pool of ten connections on a new in-memory database that lives until it is shut down, whose lock
	 * waits last ten seconds; the caller closes it
	 */
	public static HikariDataSource pool(String name) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl("jdbc:h2:mem:" + name + "-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000");
		config.setMaximumPoolSize(10);
		config.setPoolName(name);
		return new HikariDataSource(config);
	}

	/**
	 * Shuts the pool's in-memory database down (H2's {@code SHUTDOWN}, which ends {@code DB_CLOSE_DELAY=-1}) and closes
	 * the pool. A database already gone is ignored.
	 * @param pool a pool of {@link #pool(String)}
	 */
	public static void shutdown(HikariDataSource pool) {
		try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
			s.execute("SHUTDOWN");
		}
		catch (SQLException ex) {
			// already gone
		}
		pool.close();
	}

	/**
	 * @param observer a connection of the database, not taking part in the locks
	 * @return how many sessions wait for a lock H2 holds ({@code INFORMATION_SCHEMA.SESSIONS.BLOCKER_ID}); the H2
	 * fence's own tenant locks live in the JVM and are not counted
	 * @throws SQLException on a database error
	 */
	public static int blockedSessions(Connection observer) throws SQLException {
		try (PreparedStatement ps = observer
			.prepareStatement("SELECT COUNT(*) FROM INFORMATION_SCHEMA.SESSIONS WHERE BLOCKER_ID IS NOT NULL");
				ResultSet rs = ps.executeQuery()) {
			rs.next();
			return rs.getInt(1);
		}
	}

}
