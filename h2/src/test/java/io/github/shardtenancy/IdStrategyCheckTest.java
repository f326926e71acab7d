package io.github.shardtenancy;

import java.util.List;
import java.util.UUID;

import com.zaxxer.hikari.HikariConfig;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import io.github.shardtenancy.testing.ids.IntTicket;
import io.github.shardtenancy.testing.ids.Ticket;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.SequenceGenerator;
import jakarta.persistence.Table;
import jakarta.persistence.TableGenerator;
import org.hibernate.SessionFactory;
import org.hibernate.annotations.TenantId;
import org.hibernate.cfg.Configuration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * The start-up check of tenant entities' id strategies: building a plain Hibernate session factory on a tenancy
 * ({@link ShardTenancy#hibernateSettings()}) fails for a tenant entity with {@code IDENTITY}, {@code SEQUENCE},
 * {@code TABLE} or {@code AUTO} ids (per-shard counters), naming the entity, the remedy and the setting; it builds for
 * UUID, assigned and {@link ShardSafeId} ids, and for entities without a tenant; {@link IdCheck#WARN} and
 * {@link IdCheck#OFF} build anyway.
 */
@DisplayName("Start-up check: tenant entities whose id strategy would collide after a move are refused")
class IdStrategyCheckTest {

	private ShardTenancy tenancy;

	private final String name = "idcheck-" + UUID.randomUUID().toString().substring(0, 8);

	@BeforeEach
	void tenancy() {
		this.tenancy = tenancy(IdCheck.FAIL);
	}

	@AfterEach
	void close() {
		this.tenancy.close();
	}

	private ShardTenancy tenancy(IdCheck check) {
		HikariConfig directory = new HikariConfig();
		directory.setJdbcUrl("jdbc:h2:mem:" + this.name + "-directory;DB_CLOSE_DELAY=-1");
		HikariConfig shard = new HikariConfig();
		shard.setJdbcUrl("jdbc:h2:mem:" + this.name + "-shard-1;DB_CLOSE_DELAY=-1");
		ShardTenancy built = ShardTenancy.builder().directory(directory).shard("shard-1", shard)
			.idCheck(check)
			.entityCheck(EntityCheck.OFF)
			.build();
		ShardTenancyMigrations.migrateDirectory(built.directoryDataSource());
		ShardTenancyMigrations.migrateShard(built.topology().dataSource("shard-1"), "shard-1", List.of());
		built.start();
		return built;
	}

	private static SessionFactory build(ShardTenancy tenancy, Class<?>... entities) {
		Configuration configuration = new Configuration();
		for (Class<?> entity : entities) {
			configuration.addAnnotatedClass(entity);
		}
		configuration.getProperties().putAll(tenancy.hibernateSettings());
		configuration.setProperty("hibernate.dialect", "org.hibernate.dialect.H2Dialect");
		configuration.setProperty("hibernate.hbm2ddl.auto", "none");
		return configuration.buildSessionFactory();
	}

	private ShardTenancyConfigurationException refused(Class<?>... entities) {
		ShardTenancyConfigurationException refused = catchThrowableOfType(ShardTenancyConfigurationException.class,
				() -> build(this.tenancy, entities).close());
		assertThat(refused).as("refused").isNotNull();
		assertThat(refused.setting()).isEqualTo("shard-tenancy.ids.check");
		assertThat(refused.getMessage()).contains("@io.github.shardtenancy.ShardSafeId", "UUID or assigned ids",
				"shard-tenancy.ids.check=warn");
		return refused;
	}

	@Test
	@DisplayName("IDENTITY is refused, naming the entity")
	void identityRefused() {
		assertThat(refused(IdentityTicket.class).getMessage()).contains(IdentityTicket.class.getName() + " (IDENTITY)");
	}

	@Test
	@DisplayName("SEQUENCE, TABLE and AUTO are refused, all named in one message")
	void sequencesRefused() {
		assertThat(refused(SequenceTicket.class, TableTicket.class, AutoTicket.class).getMessage()).contains(
				SequenceTicket.class.getName() + " (SEQUENCE)", TableTicket.class.getName() + " (TABLE)",
				AutoTicket.class.getName() + " (SEQUENCE)");
	}

	@Test
	@DisplayName("Integer IDENTITY and SEQUENCE ids are refused too, naming each entity")
	void integerIdentityAndSequenceRefused() {
		assertThat(refused(IntIdentityTicket.class, IntSequenceTicket.class).getMessage()).contains(
				IntIdentityTicket.class.getName() + " (IDENTITY)", IntSequenceTicket.class.getName() + " (SEQUENCE)");
	}

	@Test
	@DisplayName("an Integer @ShardSafeId tenant entity is accepted, next to a Long one")
	void integerShardSafeIdAccepted() {
		assertThatNoException().isThrownBy(() -> build(this.tenancy, IntTicket.class, Ticket.class).close());
	}

	@Test
	@DisplayName("UUID, assigned and @ShardSafeId tenant entities, and an IDENTITY entity without a tenant, are accepted")
	void safeStrategiesAccepted() {
		assertThatNoException().isThrownBy(() -> build(this.tenancy, UuidTicket.class, AssignedTicket.class,
				Ticket.class, PlainIdentity.class).close());
	}

	@Test
	@DisplayName("warn and off build the session factory anyway")
	void warnAndOff() {
		for (IdCheck check : List.of(IdCheck.WARN, IdCheck.OFF)) {
			this.tenancy.close();
			this.tenancy = tenancy(check);
			assertThatNoException().as(check.name())
				.isThrownBy(() -> build(this.tenancy, IdentityTicket.class, SequenceTicket.class).close());
		}
	}

	@Entity
	@Table(name = "ticket")
	static class IdentityTicket {

		@Id
		@GeneratedValue(strategy = GenerationType.IDENTITY)
		Long id;

		@TenantId
		String tenantId;

	}

	@Entity
	@Table(name = "int_ticket")
	static class IntIdentityTicket {

		@Id
		@GeneratedValue(strategy = GenerationType.IDENTITY)
		Integer id;

		@TenantId
		String tenantId;

	}

	@Entity
	@Table(name = "int_ticket")
	static class IntSequenceTicket {

		@Id
		@GeneratedValue(strategy = GenerationType.SEQUENCE, generator = "int_tickets")
		@SequenceGenerator(name = "int_tickets", sequenceName = "int_ticket_seq")
		Integer id;

		@TenantId
		String tenantId;

	}

	@Entity
	@Table(name = "ticket")
	static class SequenceTicket {

		@Id
		@GeneratedValue(strategy = GenerationType.SEQUENCE, generator = "tickets")
		@SequenceGenerator(name = "tickets", sequenceName = "ticket_seq")
		Long id;

		@TenantId
		String tenantId;

	}

	@Entity
	@Table(name = "ticket")
	static class TableTicket {

		@Id
		@GeneratedValue(strategy = GenerationType.TABLE, generator = "ticket_ids")
		@TableGenerator(name = "ticket_ids")
		Long id;

		@TenantId
		String tenantId;

	}

	@Entity
	@Table(name = "ticket")
	static class AutoTicket {

		@Id
		@GeneratedValue
		Long id;

		@TenantId
		String tenantId;

	}

	@Entity
	@Table(name = "ticket")
	static class UuidTicket {

		@Id
		@GeneratedValue
		UUID id;

		@TenantId
		String tenantId;

	}

	@Entity
	@Table(name = "ticket")
	static class AssignedTicket {

		@Id
		Long id;

		@TenantId
		String tenantId;

	}

	@Entity
	@Table(name = "plain")
	static class PlainIdentity {

		@Id
		@GeneratedValue(strategy = GenerationType.IDENTITY)
		Long id;

	}

}
