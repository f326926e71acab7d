package io.github.shardtenancy;

import java.util.List;
import java.util.UUID;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import io.github.shardtenancy.testing.instances.InstanceHeartbeatContractTests;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.TestInstance;

/** The instance heartbeat on an in-memory H2 directory: {@link InstanceHeartbeatContractTests}. */
@DisplayName("H2: instance heartbeat and version skew across instances")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class InstanceHeartbeatTest extends InstanceHeartbeatContractTests {

	private final String name = "instances-" + UUID.randomUUID().toString().substring(0, 8);

	private HikariDataSource directory;

	@Override
	protected HikariConfig pool(String database) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl("jdbc:h2:mem:" + this.name + "-" + database + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000");
		config.setMaximumPoolSize(3);
		return config;
	}

	@Override
	protected DataSource directory() {
		return this.directory;
	}

	@BeforeAll
	void migrate() {
		this.directory = new HikariDataSource(pool("directory"));
		ShardTenancyMigrations.migrateDirectory(this.directory);
		try (HikariDataSource shard = new HikariDataSource(pool("shard-1"))) {
			ShardTenancyMigrations.migrateShard(shard, "shard-1", List.of());
		}
	}

	@AfterAll
	void close() {
		this.directory.close();
	}

}
