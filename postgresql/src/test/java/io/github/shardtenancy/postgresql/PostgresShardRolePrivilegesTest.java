package io.github.shardtenancy.postgresql;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.ShardTenancyConfigurationException;
import io.github.shardtenancy.TenantTable;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import io.github.shardtenancy.testing.pg.ScratchPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The start-up report of a shard role's excess privileges on embedded PostgreSQL, with
 * {@code ShardTenancyBuilder.strictSecurity}: a role that owns the tenant tables and migrated the shard itself (so
 * the DDL event trigger, which needs a superuser, is missing, and the role can read the fence's secret), a role that
 * is a member of a superuser role, and the superuser itself are refused naming what they have; without strict
 * security they start. The least-privilege role that starts in strict mode is in
 * {@code PostgresNoTenantIsolationTest}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayName("Shard role privileges on PostgreSQL: strict security refuses an owner, a superuser's member, a superuser")
class PostgresShardRolePrivilegesTest {

	private ScratchPostgres postgres;

	private DataSource directory;

	@BeforeAll
	void start() throws SQLException {
		this.postgres = ScratchPostgres.start("privileges");
		this.directory = this.postgres.createDatabase("directory", 2);
		ShardTenancyMigrations.migrateDirectory(this.directory);
		try (Connection c = superuser("postgres"); Statement s = c.createStatement()) {
			s.execute("CREATE ROLE pets_owner LOGIN PASSWORD 'pets_owner' NOSUPERUSER NOBYPASSRLS CREATEROLE");
			s.execute("CREATE DATABASE owned OWNER pets_owner");
			s.execute("CREATE ROLE pets_admin_member LOGIN PASSWORD 'pets_admin_member' NOSUPERUSER NOBYPASSRLS");
			s.execute("GRANT " + this.postgres.server().user() + " TO pets_admin_member");
		}
		try (HikariDataSource owner = pool("owned", "pets_owner")) {
			ShardTenancyMigrations.migrateShard(owner, "shard-1", List.of("db/testing/pets.xml"));
		}
		try (HikariDataSource owner = pool("owned", "pets_owner"); ShardTenancy install = tenancy(owner, false)) {
			install.start();
		}
		try (Connection c = superuser("owned"); Statement s = c.createStatement()) {
			s.execute("GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO pets_admin_member");
		}
	}

	@AfterAll
	void stop() {
		if (this.postgres != null) {
			this.postgres.close();
		}
	}

	@Test
	@DisplayName("the tables' owner, with CREATEROLE and no event trigger: refused when strict, naming each; started "
			+ "otherwise")
	void owner() {
		try (HikariDataSource shard = pool("owned", "pets_owner")) {
			assertThatThrownBy(() -> tenancy(shard, true).start()).isInstanceOf(ShardTenancyConfigurationException.class)
				.hasMessageContaining("pets_owner")
				.hasMessageContaining("owns the tenant table(s) pet")
				.hasMessageContaining("CREATEROLE")
				.hasMessageContaining("shard_fence_ddl_check")
				.hasMessageContaining("may read the fence's secret shard_fence_key")
				.satisfies((ex) -> assertThat(((ShardTenancyConfigurationException) ex).setting())
					.isEqualTo("strictSecurity"));
		}
		try (HikariDataSource shard = pool("owned", "pets_owner"); ShardTenancy tenancy = tenancy(shard, false)) {
			tenancy.start();
			assertThat(tenancy.topology().shardIds()).containsExactly("shard-1");
		}
	}

	@Test
	@DisplayName("a member of a superuser role, and a superuser: refused when strict")
	void superusers() {
		try (HikariDataSource shard = pool("owned", "pets_admin_member")) {
			assertThatThrownBy(() -> tenancy(shard, true).start()).isInstanceOf(ShardTenancyConfigurationException.class)
				.hasMessageContaining("may act as role " + this.postgres.server().user() + ", which is a superuser");
		}
		try (HikariDataSource shard = pool("owned", this.postgres.server().user())) {
			assertThatThrownBy(() -> tenancy(shard, true).start()).isInstanceOf(ShardTenancyConfigurationException.class)
				.hasMessageContaining("superuser");
		}
	}

	private ShardTenancy tenancy(DataSource shard, boolean strict) {
		return ShardTenancy.builder()
			.directory(this.directory)
			.shard("shard-1", shard)
			.tenantTables(List.of(new TenantTable("pet", "tenant_id")))
			.strictSecurity(strict)
			.actor("privileges@pg")
			.build();
	}

	private Connection superuser(String database) throws SQLException {
		return DriverManager.getConnection(this.postgres.server().jdbcUrl().replace("/postgres", "/" + database),
				this.postgres.server().user(), this.postgres.server().password());
	}

	private HikariDataSource pool(String database, String role) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(this.postgres.server().jdbcUrl().replace("/postgres", "/" + database));
		config.setUsername(role);
		config.setPassword(role.equals(this.postgres.server().user()) ? this.postgres.server().password() : role);
		config.setMaximumPoolSize(2);
		return new HikariDataSource(config);
	}

}
