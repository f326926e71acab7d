package io.github.shardtenancy.it.security.notenant;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import io.github.shardtenancy.MoveResult;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.MoveStep;
import io.github.shardtenancy.ShardTopology;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.TenantMover;
import io.github.shardtenancy.testing.pg.ScratchPostgres;
import io.github.shardtenancy.testing.reference.Pet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Least privilege from one set of properties, on PostgreSQL: {@code shard-tenancy.migrations.username} names the role
 * that owns the shards' schema ({@code pets_owner}, owner of the shard databases, neither superuser nor CREATEROLE),
 * which migrates the shards, installs the fence and grants the application's role ({@code pets_app}, created with
 * nothing) what it needs; the application's role then starts with {@code shard-tenancy.security.strict=true}, owns
 * no table, reads only its tenant's rows with native SQL (row-level security), may not switch the fence off, and reads
 * reference data with no tenant bound as {@code shard_tenancy_reference}.
 */
@DisplayName("PostgreSQL with Spring Boot: the shards migrated by their owner, the application's role owning nothing, "
		+ "strict")
class PostgresShardOwnerBootTest {

	static ScratchPostgres postgres;

	static ConfigurableApplicationContext context;

	@BeforeAll
	static void start() throws SQLException {
		postgres = ScratchPostgres.start("shard-owner-boot");
		postgres.createDatabase("directory", 1).close();
		try (Connection c = superuser("postgres"); Statement s = c.createStatement()) {
			s.execute("CREATE ROLE pets_owner LOGIN PASSWORD 'pets_owner' NOSUPERUSER NOBYPASSRLS NOCREATEROLE");
			s.execute("CREATE ROLE pets_app LOGIN PASSWORD 'pets_app' NOSUPERUSER NOBYPASSRLS NOCREATEROLE");
			// The operator's once-per-server part of the role for work with no tenant bound: the owner grants it on.
			s.execute("CREATE ROLE shard_tenancy_reference NOLOGIN");
			s.execute("GRANT shard_tenancy_reference TO pets_owner WITH ADMIN OPTION");
			s.execute("CREATE DATABASE shard1 OWNER pets_owner");
			s.execute("CREATE DATABASE shard2 OWNER pets_owner");
		}
		context = new SpringApplicationBuilder(NoTenantApplication.class).web(WebApplicationType.NONE)
			.properties("shard-tenancy.directory.url=" + url("directory"),
					"shard-tenancy.directory.username=" + postgres.server().user(),
					"shard-tenancy.directory.password=" + postgres.server().password(),
					"shard-tenancy.shards.shard-1.url=" + url("shard1"), "shard-tenancy.shards.shard-1.username=pets_app",
					"shard-tenancy.shards.shard-1.password=pets_app",
					"shard-tenancy.shards.shard-2.url=" + url("shard2"), "shard-tenancy.shards.shard-2.username=pets_app",
					"shard-tenancy.shards.shard-2.password=pets_app",
					"shard-tenancy.migrations.username=pets_owner", "shard-tenancy.migrations.password=pets_owner",
					"shard-tenancy.security.strict=true",
					"shard-tenancy.liquibase.shard-changelogs=db/testing/pets.xml", "shard-tenancy.sync.interval=1h",
					"shard-tenancy.actor=shard-owner-boot", "spring.liquibase.enabled=false",
					"spring.jmx.enabled=false")
			.run();
		NoTenantApplication.seed(context);
	}

	@AfterAll
	static void stop() {
		NoTenantApplication.close(context, postgres);
	}

	@Test
	@DisplayName("the owner owns every table; the application's role owns none and may not read the fence's secret")
	void ownership() throws SQLException {
		for (String shard : List.of("shard1", "shard2")) {
			try (Connection c = superuser(shard)) {
				JdbcTemplate jdbc = new JdbcTemplate(new org.springframework.jdbc.datasource.SingleConnectionDataSource(
						c, true));
				assertThat(jdbc.queryForList("SELECT DISTINCT tableowner FROM pg_tables WHERE schemaname = 'public'",
						String.class)).as(shard).containsExactly("pets_owner");
				assertThat(jdbc.queryForObject("SELECT has_table_privilege('pets_app', 'shard_fence_key', 'SELECT')",
						Boolean.class)).as(shard).isFalse();
				assertThat(jdbc.queryForObject("SELECT has_table_privilege('pets_app', 'pet', 'INSERT')",
						Boolean.class)).as(shard).isTrue();
			}
		}
	}

	@Test
	@DisplayName("a tenant's native read shows its rows only; DDL that would switch the fence off is refused; reads "
			+ "with no tenant bound run as the reference role")
	void applicationRoleIsHeldIn() throws Exception {
		JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
		List<String> acme = TenantContext.callAs("acme",
				() -> jdbc.queryForList("SELECT name FROM pet ORDER BY name", String.class));
		assertThat(acme).containsExactly("Tom");
		Throwable ddl = org.assertj.core.api.Assertions.catchThrowable(() -> TenantContext.runAs("acme",
				() -> jdbc.execute("ALTER TABLE pet DISABLE TRIGGER ALL")));
		assertThat(ddl).as("DDL of the application's role").isNotNull();
		try (Connection c = DriverManager.getConnection(url("shard1"), "pets_app", "pets_app");
				Statement s = c.createStatement()) {
			assertThatThrownBy(() -> s.execute("ALTER TABLE pet NO FORCE ROW LEVEL SECURITY"))
				.isInstanceOf(SQLException.class)
				.hasMessageContaining("must be owner");
		}
		assertThat(jdbc.queryForObject("SELECT current_user FROM pet_type WHERE id = 1", String.class))
			.isEqualTo("shard_tenancy_reference");
		ShardTopology topology = context.getBean(ShardTopology.class);
		assertThat(new JdbcTemplate(topology.dataSource("shard-1")).queryForObject("SELECT current_user", String.class))
			.isEqualTo("pets_app");
	}

	@Test
	@DisplayName("the application's role moves a tenant online: its rows on the new owner only, its tenant reads them")
	void moves() throws Exception {
		Pets pets = context.getBean(Pets.class);
		PetTypes types = context.getBean(PetTypes.class);
		context.getBean(TenantAdmin.class).create("initech", "shard-1");
		TenantContext.runAs("initech", () -> pets.save(new Pet("Milton", types.findById(1).orElseThrow())));
		MoveResult moved = context.getBean(TenantMover.class).moveAndWait("initech", "shard-2", MoveSettings.defaults());
		assertThat(moved.step()).isEqualTo(MoveStep.DONE);
		List<Pet> after = TenantContext.callAs("initech", pets::findAll);
		assertThat(after).extracting(Pet::getName).containsExactly("Milton");
		try (Connection c = superuser("shard2"); Statement s = c.createStatement();
				java.sql.ResultSet rs = s.executeQuery("SELECT count(*) FROM pet WHERE tenant_id = 'initech'")) {
			rs.next();
			assertThat(rs.getLong(1)).isEqualTo(1);
		}
	}

	private static Connection superuser(String database) throws SQLException {
		return DriverManager.getConnection(url(database), postgres.server().user(), postgres.server().password());
	}

	private static String url(String database) {
		return postgres.server().jdbcUrl().replace("/postgres", "/" + database);
	}

}
