package io.github.shardtenancy;

import java.util.List;
import java.util.UUID;

import com.zaxxer.hikari.HikariConfig;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import io.github.shardtenancy.testing.entities.CheckedEntities;
import io.github.shardtenancy.testing.entities.CheckedEntities.Country;
import io.github.shardtenancy.testing.entities.CheckedEntities.LeakyNote;
import io.github.shardtenancy.testing.entities.CheckedEntities.Note;
import io.github.shardtenancy.testing.entities.CheckedEntities.PetType;
import org.hibernate.SessionFactory;
import org.hibernate.cfg.Configuration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * The start-up check that every entity is tenant data or reference data ({@link EntityCheck}), on H2: building a
 * plain Hibernate session factory on a tenancy ({@link ShardTenancy#hibernateSettings()}) with an entity that has a
 * {@code tenant_id} column but no {@code @TenantId} attribute fails with {@link EntityCheck#FAIL} (the default), naming the entity,
 * its table, the column and the setting; tenant entities, {@link ReferenceData} entities and entities of a declared
 * reference table pass; {@link EntityCheck#WARN} and {@link EntityCheck#OFF} build anyway.
 */
@DisplayName("Start-up check: an entity that is neither tenant nor reference data (H2)")
class EntityCheckTest {

	private final String name = "entitycheck-" + UUID.randomUUID().toString().substring(0, 8);

	private ShardTenancy tenancy;

	@AfterEach
	void close() {
		if (this.tenancy != null) {
			this.tenancy.close();
		}
	}

	private ShardTenancy tenancy(EntityCheck check) {
		HikariConfig directory = new HikariConfig();
		directory.setJdbcUrl("jdbc:h2:mem:" + this.name + "-directory;DB_CLOSE_DELAY=-1");
		HikariConfig shard = new HikariConfig();
		shard.setJdbcUrl("jdbc:h2:mem:" + this.name + "-shard-1;DB_CLOSE_DELAY=-1");
		ShardTenancyBuilder builder = ShardTenancy.builder().directory(directory).shard("shard-1", shard)
			.referenceTables(List.of(CheckedEntities.COUNTRY_TABLE));
		if (check != null) {
			builder.entityCheck(check);
		}
		ShardTenancy built = builder.build();
		ShardTenancyMigrations.migrateDirectory(built.directoryDataSource());
		ShardTenancyMigrations.migrateShard(built.topology().dataSource("shard-1"), "shard-1", List.of());
		built.start();
		this.tenancy = built;
		return built;
	}

	static SessionFactory build(ShardTenancy tenancy, String dialect, Class<?>... entities) {
		Configuration configuration = new Configuration();
		for (Class<?> entity : entities) {
			configuration.addAnnotatedClass(entity);
		}
		configuration.getProperties().putAll(tenancy.hibernateSettings());
		configuration.setProperty("hibernate.dialect", dialect);
		configuration.setProperty("hibernate.hbm2ddl.auto", "none");
		return configuration.buildSessionFactory();
	}

	private static final String H2 = "org.hibernate.dialect.H2Dialect";

	@Test
	@DisplayName("fail: a tenant_id column without @TenantId is refused, naming entity, table, column and setting")
	void untenantedEntityRefused() {
		ShardTenancy failing = tenancy(EntityCheck.FAIL);
		ShardTenancyConfigurationException refused = catchThrowableOfType(ShardTenancyConfigurationException.class,
				() -> build(failing, H2, Note.class, LeakyNote.class).close());
		assertThat(refused).as("refused").isNotNull();
		assertThat(refused.setting()).isEqualTo("shard-tenancy.entities.check");
		assertThat(refused.getMessage()).contains(LeakyNote.class.getName(), "table ec_leaky_note",
				"column tenant_id is mapped without @TenantId", "@org.hibernate.annotations.TenantId",
				"shard-tenancy.entities.check=warn");
		assertThat(refused.getMessage()).doesNotContain(Note.class.getName() + " (");
	}

	@Test
	@DisplayName("fail: tenant entities, @ReferenceData entities and entities of a declared reference table build")
	void tenantAndReferenceEntitiesAccepted() {
		ShardTenancy failing = tenancy(EntityCheck.FAIL);
		assertThatNoException()
			.isThrownBy(() -> build(failing, H2, Note.class, PetType.class, Country.class).close());
	}

	@Test
	@DisplayName("the default is fail")
	void defaultRefuses() {
		ShardTenancy byDefault = tenancy(null);
		ShardTenancyConfigurationException refused = catchThrowableOfType(ShardTenancyConfigurationException.class,
				() -> build(byDefault, H2, LeakyNote.class).close());
		assertThat(refused).as("refused").isNotNull();
		assertThat(refused.getMessage()).contains(LeakyNote.class.getName(), "shard-tenancy.entities.check is fail");
	}

	@Test
	@DisplayName("warn and off build the session factory with the untenanted entity")
	void warnAndOffBuild() {
		assertThatNoException().as("warn")
			.isThrownBy(() -> build(tenancy(EntityCheck.WARN), H2, LeakyNote.class).close());
		this.tenancy.close();
		assertThatNoException().as("off")
			.isThrownBy(() -> build(tenancy(EntityCheck.OFF), H2, LeakyNote.class).close());
	}

}
