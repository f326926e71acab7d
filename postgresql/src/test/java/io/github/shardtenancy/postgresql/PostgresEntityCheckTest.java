package io.github.shardtenancy.postgresql;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.EntityCheck;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.ShardTenancyConfigurationException;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import io.github.shardtenancy.testing.entities.CheckedEntities;
import io.github.shardtenancy.testing.entities.CheckedEntities.Country;
import io.github.shardtenancy.testing.entities.CheckedEntities.LeakyNote;
import io.github.shardtenancy.testing.entities.CheckedEntities.Note;
import io.github.shardtenancy.testing.entities.CheckedEntities.PetType;
import io.github.shardtenancy.testing.pg.ScratchPostgres;
import org.hibernate.SessionFactory;
import org.hibernate.cfg.Configuration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * The start-up check that every entity is tenant data or reference data ({@link EntityCheck}) on PostgreSQL: a
 * session factory on a tenancy whose shard is a PostgreSQL database refuses, with {@link EntityCheck#FAIL}, an entity
 * mapped to a table with a {@code tenant_id} column but no {@code @TenantId} attribute, and builds for tenant entities,
 * {@link ReferenceData} entities and entities of a declared, schema-qualified reference table; the default warns.
 */
@DisplayName("PostgreSQL: start-up check of entities that are neither tenant nor reference data")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresEntityCheckTest {

	private ScratchPostgres postgres;

	private HikariDataSource directory;

	private HikariDataSource shard;

	@BeforeAll
	void start() throws SQLException {
		this.postgres = ScratchPostgres.start("entity-check");
		this.directory = this.postgres.createDatabase("directory", 2);
		this.shard = this.postgres.createDatabase("shard_1", 2);
		ShardTenancyMigrations.migrateDirectory(this.directory);
		ShardTenancyMigrations.migrateShard(this.shard, "shard-1", List.of());
		try (Connection c = this.shard.getConnection(); Statement s = c.createStatement()) {
			s.execute("CREATE TABLE ec_note (id uuid PRIMARY KEY, tenant_id varchar(64) NOT NULL)");
			s.execute("CREATE TABLE ec_leaky_note (id uuid PRIMARY KEY, tenant_id varchar(64))");
			s.execute("CREATE TABLE ec_pet_type (id bigint PRIMARY KEY, name text)");
			s.execute("CREATE TABLE ec_country (code text PRIMARY KEY)");
			if (!c.getAutoCommit()) {
				c.commit();
			}
		}
	}

	@AfterAll
	void stop() {
		this.postgres.close();
	}

	private ShardTenancy tenancy(EntityCheck check) {
		var builder = ShardTenancy.builder()
			.directory(ScratchPostgres.configLike(this.directory, 2))
			.shard("shard-1", ScratchPostgres.configLike(this.shard, 2))
			.rowLevelSecurity(false)
			.referenceTables(List.of(CheckedEntities.COUNTRY_TABLE));
		if (check != null) {
			builder.entityCheck(check);
		}
		ShardTenancy tenancy = builder.build();
		tenancy.start();
		return tenancy;
	}

	private static SessionFactory build(ShardTenancy tenancy, Class<?>... entities) {
		Configuration configuration = new Configuration();
		for (Class<?> entity : entities) {
			configuration.addAnnotatedClass(entity);
		}
		configuration.getProperties().putAll(tenancy.hibernateSettings());
		configuration.setProperty("hibernate.dialect", "org.hibernate.dialect.PostgreSQLDialect");
		configuration.setProperty("hibernate.hbm2ddl.auto", "validate");
		return configuration.buildSessionFactory();
	}

	@Test
	@DisplayName("fail: the entity with tenant_id but no @TenantId is refused, naming entity, table and column")
	void untenantedEntityRefused() {
		try (ShardTenancy tenancy = tenancy(EntityCheck.FAIL)) {
			ShardTenancyConfigurationException refused = catchThrowableOfType(
					ShardTenancyConfigurationException.class, () -> build(tenancy, Note.class, LeakyNote.class).close());
			assertThat(refused).as("refused").isNotNull();
			assertThat(refused.setting()).isEqualTo("shard-tenancy.entities.check");
			assertThat(refused.getMessage()).contains(LeakyNote.class.getName(), "table ec_leaky_note",
					"column tenant_id is mapped without @TenantId");
		}
	}

	@Test
	@DisplayName("fail: tenant, @ReferenceData and declared reference table entities build, validated against the shard")
	void tenantAndReferenceEntitiesAccepted() {
		try (ShardTenancy tenancy = tenancy(EntityCheck.FAIL)) {
			assertThatNoException()
				.isThrownBy(() -> build(tenancy, Note.class, PetType.class, Country.class).close());
		}
	}

	@Test
	@DisplayName("the default (fail) refuses the untenanted entity; warn builds the session factory with it")
	void defaultRefusesWarnBuilds() {
		try (ShardTenancy tenancy = tenancy(null)) {
			assertThat(catchThrowableOfType(ShardTenancyConfigurationException.class,
					() -> build(tenancy, LeakyNote.class).close()))
				.as("refused by default")
				.isNotNull();
		}
		try (ShardTenancy tenancy = tenancy(EntityCheck.WARN)) {
			assertThatNoException().isThrownBy(() -> build(tenancy, LeakyNote.class).close());
		}
	}

}
