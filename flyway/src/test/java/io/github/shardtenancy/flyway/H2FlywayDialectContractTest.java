package io.github.shardtenancy.flyway;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.UUID;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.h2.H2Fence;
import io.github.shardtenancy.testing.dialect.DialectContractTests;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;

@DisplayName("H2 dialect: the fence contract on an H2 shard migrated by Flyway")
class H2FlywayDialectContractTest extends DialectContractTests {

	private HikariDataSource pool;

	@Override
	protected DataSource shardDataSource() {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl("jdbc:h2:mem:flyway-contract-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000");
		config.setMaximumPoolSize(10);
		config.setPoolName("h2-flyway-contract");
		this.pool = new HikariDataSource(config);
		return this.pool;
	}

	@Override
	protected void migrate(DataSource shard) {
		ShardTenancyFlyway.migrateShard(shard, SHARD_ID, List.of("classpath:db/flyway-contract"));
	}

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
		this.pool.close();
	}

}
