package io.github.shardtenancy.flyway;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

import javax.sql.DataSource;

import io.github.shardtenancy.testing.dialect.DialectContractTests;
import io.github.shardtenancy.testing.pg.ScratchPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;

@DisplayName("PostgreSQL dialect: the fence contract on an embedded PostgreSQL shard migrated by Flyway")
class PostgresFlywayDialectContractTest extends DialectContractTests {

	private ScratchPostgres postgres;

	@Override
	protected DataSource shardDataSource() {
		this.postgres = ScratchPostgres.start("flyway-contract");
		return this.postgres.pool(10);
	}

	@Override
	protected void migrate(DataSource shard) {
		ShardTenancyFlyway.migrateShard(shard, SHARD_ID, List.of("classpath:db/flyway-contract"));
	}

	@Override
	protected int sessionsWaitingForLock(Connection observer) throws SQLException {
		return ScratchPostgres.sessionsWaitingForLock(observer);
	}

	@AfterAll
	void stopServer() {
		if (this.postgres != null) {
			this.postgres.close();
		}
	}

}
