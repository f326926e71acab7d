package io.github.shardtenancy.postgresql;

import java.sql.Connection;
import java.sql.SQLException;

import javax.sql.DataSource;

import io.github.shardtenancy.testing.dialect.DialectContractTests;
import io.github.shardtenancy.testing.pg.ScratchPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;

@DisplayName("PostgreSQL dialect: the fence contract on an embedded PostgreSQL shard")
class PostgresDialectContractTest extends DialectContractTests {

	private ScratchPostgres postgres;

	@Override
	protected DataSource shardDataSource() {
		this.postgres = ScratchPostgres.start("dialect-contract");
		return this.postgres.pool(10);
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
