package io.github.shardtenancy.h2;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.testing.dialect.DialectContractTests;
import io.github.shardtenancy.testing.h2.H2Shards;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;

@DisplayName("H2 dialect: the fence contract on an in-memory H2 shard")
class H2DialectContractTest extends DialectContractTests {

	private HikariDataSource pool;

	@Override
	protected DataSource shardDataSource() {
		this.pool = H2Shards.pool("h2-dialect-contract");
		return this.pool;
	}

	/**
	 * H2 names the session a waiting session waits for in {@code INFORMATION_SCHEMA.SESSIONS.BLOCKER_ID}; a session
	 * waiting for a tenant's fence lock, which the fence keeps in this JVM, is counted by the fence.
	 */
	@Override
	protected int sessionsWaitingForLock(Connection observer) throws SQLException {
		return H2Shards.blockedSessions(observer) + H2Fence.sessionsWaitingForFenceLock(observer);
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
