package io.github.shardtenancy.h2;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.UUID;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.testing.dialect.DialectContractTests;
import org.h2.tools.Server;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;

/**
 * The fence contract on an H2 shard reached over TCP: the library's connections are TCP clients, so every begin and
 * fence change goes through SQL, while the row triggers and {@code SHARD_FENCE_LOCK} run in the JVM of the TCP
 * server (this one), where the tenant's fence lock lives.
 */
@DisplayName("H2 dialect: the fence contract on an H2 shard reached over TCP")
class H2TcpDialectContractTest extends DialectContractTests {

	private Server server;

	private HikariDataSource pool;

	@Override
	protected DataSource shardDataSource() {
		try {
			this.server = Server.createTcpServer("-tcpPort", "0", "-ifNotExists").start();
		}
		catch (SQLException ex) {
			throw new IllegalStateException("could not start the H2 TCP server", ex);
		}
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl("jdbc:h2:tcp://localhost:" + this.server.getPort() + "/mem:h2-tcp-contract-"
				+ UUID.randomUUID() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000");
		config.setMaximumPoolSize(10);
		config.setPoolName("h2-tcp-contract");
		this.pool = new HikariDataSource(config);
		return this.pool;
	}

	/**
	 * The waits for the tenant's fence lock happen in the server's JVM, this one; the observer is a TCP client, so
	 * they are counted from a session of the server's own.
	 */
	@Override
	protected int sessionsWaitingForLock(Connection observer) throws SQLException {
		try (Connection local = org.h2.Driver.load()
			.connect(this.pool.getJdbcUrl().replaceFirst("tcp://localhost:\\d+/", ""), new java.util.Properties())) {
			return io.github.shardtenancy.testing.h2.H2Shards.blockedSessions(observer)
					+ H2Fence.sessionsWaitingForFenceLock(local);
		}
	}

	/** Over TCP the begin is a statement that takes no lock; the row trigger takes it at the first write. */
	@Override
	protected boolean beginHoldsTheFenceLock() {
		return false;
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
		this.server.stop();
	}

}
