package io.github.shardtenancy.postgresql;

import java.sql.SQLException;
import java.util.List;
import java.util.Map;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import io.github.shardtenancy.testing.instances.InstanceHeartbeatContractTests;
import io.github.shardtenancy.testing.pg.ScratchPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.TestInstance;

/**
 * The instance heartbeat on an embedded PostgreSQL directory ({@link InstanceHeartbeatContractTests}): times are the
 * server's {@code CURRENT_TIMESTAMP} in {@code timestamp with time zone} columns.
 */
@DisplayName("PostgreSQL: instance heartbeat and version skew across instances")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresInstanceHeartbeatTest extends InstanceHeartbeatContractTests {

	private ScratchPostgres postgres;

	private final Map<String, HikariDataSource> databases = new java.util.LinkedHashMap<>();

	@BeforeAll
	void startServer() throws SQLException {
		this.postgres = ScratchPostgres.start("instances");
		for (String database : List.of("directory", "shard_1")) {
			this.databases.put(database, this.postgres.createDatabase(database, 2));
		}
		ShardTenancyMigrations.migrateDirectory(this.databases.get("directory"));
		ShardTenancyMigrations.migrateShard(this.databases.get("shard_1"), "shard-1", List.of());
	}

	@AfterAll
	void stopServer() {
		if (this.postgres != null) {
			this.postgres.close();
		}
	}

	@Override
	protected HikariConfig pool(String database) {
		HikariDataSource existing = this.databases.get(database.replace('-', '_'));
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(existing.getJdbcUrl());
		config.setUsername(existing.getUsername());
		config.setPassword(existing.getPassword());
		config.setMaximumPoolSize(3);
		return config;
	}

	@Override
	protected DataSource directory() {
		return this.databases.get("directory");
	}

}
