package io.github.shardtenancy.h2;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.UUID;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.testing.dialect.DialectContractTests;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;

@DisplayName("H2 dialect: the fence contract on an in-memory H2 shard")
class H2DialectContractTest extends DialectContractTests {

	private HikariDataSource pool;

	@Override
	protected DataSource shardDataSource() {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl("jdbc:h2:mem:dialect-contract-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000");
		config.setMaximumPoolSize(10);
		config.setPoolName("h2-dialect-contract");
		this.pool = new HikariDataSource(config);
		return this.pool;
	}

	/**
	 * H2 names the session a waiting session waits for in {@code INFORMATION_SCHEMA.SESSIONS.BLOCKER_ID}; a session
	 * waiting for a tenant's fence lock, which the fence keeps in this JVM, is counted by the fence.
	 */
	@Override
	protected int sessionsWaitingForLock(Connection observer) throws SQLException {
		try (PreparedStatement ps = observer
			.prepareStatement("SELECT COUNT(*) FROM INFORMATION_SCHEMA.SESSIONS WHERE BLOCKER_ID IS NOT NULL");
				ResultSet rs = ps.executeQuery()) {
			rs.next();
			return rs.getInt(1) + H2Fence.sessionsWaitingForFenceLock(observer);
		}
	}

	@AfterAll
	void closePool() {
		try (Connection c = this.pool.getConnection(); PreparedStatement ps = c.prepareStatement("SHUTDOWN")) {
			ps.execute();
		}
		catch (SQLException ex) {
			// the database is gone either way
		}
		this.pool.close();
	}

}
