package io.github.shardtenancy.flyway;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.liquibase.MigrationToolConflictException;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import io.github.shardtenancy.testing.pg.ScratchPostgres;
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

	private ScratchPostgres postgres;

	@BeforeAll
	void start() {
		this.postgres = ScratchPostgres.start("flyway-schema");
	}

	private HikariDataSource database(String name) throws SQLException {
		return this.postgres.createDatabase(name, 2);
	}

	@Test
	@DisplayName("the directory schema, with its notification trigger, is the one Liquibase builds")
	void directory() throws SQLException {
		HikariDataSource liquibase = database("lb_directory");
		HikariDataSource flyway = database("fw_directory");
		assertThat(SchemaSnapshot.sameDirectory(liquibase, flyway))
			.anyMatch((line) -> line.startsWith("function shard_directory_notify()"))
			.anyMatch((line) -> line.startsWith("trigger shard_directory_version.shard_directory_notify"));
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
	void stop() {
		if (this.postgres != null) {
			this.postgres.close();
		}
	}

}
