package io.github.shardtenancy.flyway;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.liquibase.MigrationToolConflictException;
import io.github.shardtenancy.liquibase.ShardIdentityConflictException;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import io.github.shardtenancy.testing.h2.H2Shards;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@DisplayName("Flyway on H2: the same schema as the Liquibase changelogs, and the guards around it")
class H2FlywaySchemaTest {

	private final List<HikariDataSource> pools = new java.util.ArrayList<>();

	private HikariDataSource h2(String name) {
		HikariDataSource pool = H2Shards.pool(name);
		this.pools.add(pool);
		return pool;
	}

	@AfterEach
	void close() {
		this.pools.forEach(HikariDataSource::close);
	}

	@Test
	@DisplayName("the directory schema is the one Liquibase builds")
	void directorySchemaMatchesLiquibase() throws SQLException {
		HikariDataSource liquibase = h2("lb-directory");
		HikariDataSource flyway = h2("fw-directory");
		assertThat(SchemaSnapshot.sameDirectory(liquibase, flyway)).contains("table shard_directory_entry",
				"table shard_move", "table shard_registry", "row 1 0");
	}

	@Test
	@DisplayName("the shard schema is the one Liquibase builds; the application's migrations have their own history")
	void shardSchemaMatchesLiquibase() throws SQLException {
		HikariDataSource liquibase = h2("lb-shard");
		HikariDataSource flyway = h2("fw-shard");
		ShardTenancyMigrations.migrateShard(liquibase, "shard-1", List.of());
		ShardTenancyFlyway.migrateShard(flyway, "shard-1", List.of());
		List<String> expected = SchemaSnapshot.of(liquibase);
		assertThat(expected).contains("table shard_fence", "table shard_change",
				"alias SHARD_FENCE_BEGIN io.github.shardtenancy.h2.H2Fence.begin");
		assertThat(SchemaSnapshot.of(flyway)).containsExactlyElementsOf(expected);
		assertThat(identity(flyway)).isEqualTo("shard-1");
	}

	@Test
	@DisplayName("a second run changes nothing; application migrations are recorded apart from the library's")
	void rerunIsIdempotentAndHistoriesAreSeparate() throws SQLException {
		HikariDataSource shard = h2("fw-rerun");
		ShardTenancyFlyway.migrateShard(shard, "shard-1", List.of("classpath:db/flyway-test/shard"));
		List<String> first = SchemaSnapshot.of(shard);
		ShardTenancyFlyway.migrateShard(shard, "shard-1", List.of("classpath:db/flyway-test/shard"));
		assertThat(SchemaSnapshot.of(shard)).containsExactlyElementsOf(first).contains("table note");
		assertThat(versions(shard, "\"shard_tenancy_schema_history\"")).as("the fence, two repeatables (H2, PostgreSQL)")
			.containsExactly("TABLE null", "JDBC 1", "JDBC 2", "JDBC 3", "JDBC 4", "JDBC 5", "JDBC null", "JDBC null");
		assertThat(versions(shard, "\"flyway_schema_history\"")).as("a baseline below the application's first version")
			.containsExactly("TABLE null", "BASELINE 0", "SQL 1");
	}

	@Test
	@DisplayName("the library's migrations never pick up the application's default location db/migration")
	void libraryRunsScanNoLocation() throws SQLException {
		HikariDataSource directory = h2("fw-scan");
		ShardTenancyFlyway.migrateDirectory(directory);
		assertThat(versions(directory, "\"shard_tenancy_schema_history\""))
			.containsExactly("TABLE null", "JDBC 1", "JDBC 2", "JDBC 3", "JDBC 4", "JDBC 5", "JDBC 6", "JDBC 7", "JDBC 11",
					"JDBC 12", "JDBC 13", "JDBC null");
	}

	@Test
	@DisplayName("a failing application migration fails the shard's migration, and the shard gets no identity")
	void failingApplicationMigration() throws SQLException {
		HikariDataSource shard = h2("fw-broken");
		assertThatThrownBy(
				() -> ShardTenancyFlyway.migrateShard(shard, "shard-9", List.of("classpath:db/flyway-test/broken")))
			.isInstanceOf(IllegalStateException.class)
			.hasMessageContaining("shard 'shard-9'")
			.hasMessageContaining("application's migrations");
		assertThat(identity(shard)).isNull();
	}

	@Test
	@DisplayName("a database Liquibase migrated is refused by Flyway, and the other way round")
	void theOtherToolsDatabaseIsRefused() throws SQLException {
		HikariDataSource byLiquibase = h2("lb-owned");
		ShardTenancyMigrations.migrateShard(byLiquibase, "shard-1", List.of());
		List<String> before = SchemaSnapshot.of(byLiquibase);
		assertThatThrownBy(() -> ShardTenancyFlyway.migrateShard(byLiquibase, "shard-1", List.of()))
			.isInstanceOf(MigrationToolConflictException.class)
			.hasMessageContaining("installed by Liquibase");
		assertThat(SchemaSnapshot.of(byLiquibase)).containsExactlyElementsOf(before);

		HikariDataSource byFlyway = h2("fw-owned");
		ShardTenancyFlyway.migrateDirectory(byFlyway);
		assertThatThrownBy(() -> ShardTenancyMigrations.migrateDirectory(byFlyway))
			.isInstanceOf(MigrationToolConflictException.class)
			.hasMessageContaining("installed by Flyway");
	}

	@Test
	@DisplayName("a database that belongs to another shard id is refused")
	void identityConflict() {
		HikariDataSource shard = h2("fw-identity");
		ShardTenancyFlyway.migrateShard(shard, "shard-1", List.of());
		assertThatThrownBy(() -> ShardTenancyFlyway.migrateShard(shard, "shard-2", List.of()))
			.isInstanceOf(ShardIdentityConflictException.class)
			.hasMessageContaining("already belongs to shard 'shard-1'");
	}

	private static String identity(HikariDataSource shard) throws SQLException {
		try (Connection c = shard.getConnection(); Statement s = c.createStatement();
				ResultSet rs = s.executeQuery("SELECT shard_id FROM shard_fence_identity")) {
			return rs.next() ? rs.getString(1) : null;
		}
	}

	static List<String> versions(javax.sql.DataSource dataSource, String table) throws SQLException {
		List<String> versions = new java.util.ArrayList<>();
		try (Connection c = dataSource.getConnection(); Statement s = c.createStatement();
				ResultSet rs = s.executeQuery("SELECT \"type\", \"version\" FROM " + table + " ORDER BY \"installed_rank\"")) {
			while (rs.next()) {
				versions.add(rs.getString(1) + " " + rs.getString(2));
			}
		}
		return versions;
	}

}
