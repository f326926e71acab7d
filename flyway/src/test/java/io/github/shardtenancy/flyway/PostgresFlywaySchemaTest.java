package io.github.shardtenancy.flyway;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.liquibase.MigrationToolConflictException;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import io.github.shardtenancy.testing.pg.EmbeddedPostgresServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayName("Flyway on PostgreSQL: the same schema as the Liquibase changelogs (tables, functions, triggers)")
class PostgresFlywaySchemaTest {

	private Path dataDirectory;

	private EmbeddedPostgresServer server;

	private final List<HikariDataSource> pools = new ArrayList<>();

	@BeforeAll
	void start() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			this.dataDirectory = Files.createTempDirectory("pg-flyway-schema");
			this.server = new EmbeddedPostgresServer("flyway-schema", this.dataDirectory, socket.getLocalPort());
		}
		this.server.start();
	}

	private HikariDataSource database(String name) throws SQLException {
		try (HikariDataSource admin = pool(this.server.jdbcUrl()); Connection c = admin.getConnection();
				Statement s = c.createStatement()) {
			s.execute("CREATE DATABASE " + name);
		}
		HikariDataSource pool = pool(this.server.jdbcUrl().replace("/postgres", "/" + name));
		this.pools.add(pool);
		return pool;
	}

	private HikariDataSource pool(String url) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(url);
		config.setUsername(this.server.user());
		config.setPassword(this.server.password());
		config.setMaximumPoolSize(2);
		return new HikariDataSource(config);
	}

	@Test
	@DisplayName("the directory schema, with its notification trigger, is the one Liquibase builds")
	void directory() throws SQLException {
		HikariDataSource liquibase = database("lb_directory");
		HikariDataSource flyway = database("fw_directory");
		ShardTenancyMigrations.migrateDirectory(liquibase);
		ShardTenancyFlyway.migrateDirectory(flyway);
		List<String> expected = SchemaSnapshot.of(liquibase);
		assertThat(expected).anyMatch((line) -> line.startsWith("function shard_directory_notify()"))
			.anyMatch((line) -> line.startsWith("trigger shard_directory_version.shard_directory_notify"));
		assertThat(SchemaSnapshot.of(flyway)).containsExactlyElementsOf(expected);
	}

	@Test
	@DisplayName("the shard schema (fence functions, DDL refusal, an application table with its fence trigger) is the one Liquibase builds, and stays so on a second run")
	void shard() throws SQLException {
		HikariDataSource liquibase = database("lb_shard");
		HikariDataSource flyway = database("fw_shard");
		ShardTenancyMigrations.migrateShard(liquibase, "shard-1", List.of("db/dialect-contract/contract.xml"));
		ShardTenancyFlyway.migrateShard(flyway, "shard-1", List.of("classpath:db/flyway-contract"));
		for (HikariDataSource shard : List.of(liquibase, flyway)) {
			try (Connection c = shard.getConnection(); Statement s = c.createStatement()) {
				s.execute("SELECT shard_fence_install('contract_note', 'tenant_id')");
			}
		}
		List<String> expected = SchemaSnapshot.of(liquibase);
		assertThat(expected).anyMatch((line) -> line.startsWith("function shard_fence_begin("))
			.anyMatch((line) -> line.startsWith("event trigger shard_fence_ddl_check"))
			.anyMatch((line) -> line.startsWith("trigger contract_note.shard_fence_write_check"));
		assertThat(SchemaSnapshot.of(flyway)).containsExactlyElementsOf(expected);

		ShardTenancyFlyway.migrateShard(flyway, "shard-1", List.of("classpath:db/flyway-contract"));
		assertThat(SchemaSnapshot.of(flyway)).containsExactlyElementsOf(expected);
		assertThatThrownBy(() -> ShardTenancyFlyway.migrateShard(liquibase, "shard-1", List.of()))
			.isInstanceOf(MigrationToolConflictException.class);
	}

	@AfterAll
	void stop() throws IOException {
		this.pools.forEach(HikariDataSource::close);
		if (this.server != null) {
			this.server.stop();
		}
		if (this.dataDirectory != null) {
			try (Stream<Path> paths = Files.walk(this.dataDirectory)) {
				for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
					Files.deleteIfExists(path);
				}
			}
		}
	}

}
