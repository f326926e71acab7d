package io.github.shardtenancy.testcontainers;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;

import io.github.shardtenancy.ShardTopology;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.boot.ShardConnectionDetails;
import io.github.shardtenancy.boot.ShardTenancyConnectionDetails;
import io.github.shardtenancy.boot.ShardTenancyDirectoryConnectionDetails;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.springframework.jdbc.core.JdbcTemplate;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.postgresql.PostgreSQLContainer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Boot application whose directory and two shards are PostgreSQL containers annotated {@code @ServiceConnection}: no
 * {@code shard-tenancy.*.url} is set. Needs Docker: skipped (reported as skipped) where there is none.
 */
@Testcontainers(disabledWithoutDocker = true)
@SpringBootTest(classes = ServiceConnectionTests.App.class, properties = {
		"shard-tenancy.liquibase.shard-changelogs=db/memo-shard.xml", "shard-tenancy.tenant-tables=memo:tenant_id",
		"shard-tenancy.sync.interval=1h" })
@DisplayName("@ServiceConnection containers (Docker)")
class ServiceConnectionTests {

	private static final String IMAGE = "postgres:17-alpine";

	@Container
	@ServiceConnection(name = ShardTenancyDirectoryConnectionDetails.CONNECTION_NAME)
	static final PostgreSQLContainer directory = new PostgreSQLContainer(IMAGE).withDatabaseName("directory");

	@Container
	@ServiceConnection(name = ShardConnectionDetails.CONNECTION_NAME)
	static final PostgreSQLContainer shard1 = new PostgreSQLContainer(IMAGE).withDatabaseName("shard-1");

	@Container
	@ServiceConnection(name = ShardConnectionDetails.CONNECTION_NAME)
	static final PostgreSQLContainer shard2 = new PostgreSQLContainer(IMAGE).withDatabaseName("postgres")
		.withLabel(ShardConnectionDetails.SHARD_ID_LABEL, "shard-2");

	@Autowired
	private ShardTenancyConnectionDetails details;

	@Autowired
	private ShardTopology topology;

	@Autowired
	private TenantAdmin admin;

	@Autowired
	private JdbcTemplate jdbc;

	@Test
	@DisplayName("the containers are the directory and the shards, and a tenant's rows land on its shard's container")
	void routesToTheContainers() throws Exception {
		assertThat(this.details.getDirectory().jdbcUrl()).isEqualTo(directory.getJdbcUrl());
		assertThat(this.topology.shardIds()).containsExactlyInAnyOrder("shard-1", "shard-2");
		this.admin.create("acme", "shard-2");

		TenantContext.runAs("acme", () -> this.jdbc.update("INSERT INTO memo (id, tenant_id, body) VALUES (1, ?, ?)",
				"acme", "hello"));

		assertThat(count(shard2, "acme")).isOne();
		assertThat(count(shard1, "acme")).isZero();
	}

	private static long count(PostgreSQLContainer container, String tenant) throws Exception {
		try (Connection c = DriverManager.getConnection(container.getJdbcUrl(), container.getUsername(),
				container.getPassword());
				ResultSet rs = c.createStatement()
					.executeQuery("SELECT COUNT(*) FROM memo WHERE tenant_id = '" + tenant + "'")) {
			rs.next();
			return rs.getLong(1);
		}
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class App {

	}

}
