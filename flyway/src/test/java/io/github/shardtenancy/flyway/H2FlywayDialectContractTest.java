package io.github.shardtenancy.flyway;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.h2.H2Fence;
import io.github.shardtenancy.testing.dialect.DialectContractTests;
import io.github.shardtenancy.testing.h2.H2Shards;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;

@DisplayName("H2 dialect: the fence contract on an H2 shard migrated by Flyway")
class H2FlywayDialectContractTest extends DialectContractTests {

	private HikariDataSource pool;

	@Override
	protected DataSource shardDataSource() {
		this.pool = H2Shards.pool("h2-flyway-contract");
		return this.pool;
	}

	@Override
	protected void migrate(DataSource shard) {
		ShardTenancyFlyway.migrateShard(shard, SHARD_ID, List.of("classpath:db/flyway-contract"));
	}

	/** Sessions H2 blocks, and sessions waiting for a tenant's fence lock, which the H2 fence keeps in this JVM. */
	@Override
	protected int sessionsWaitingForLock(Connection observer) throws SQLException {
		return H2Shards.blockedSessions(observer) + H2Fence.sessionsWaitingForFenceLock(observer);
	}

	@AfterAll
	void closePool() {
		this.pool.close();
	}

}
