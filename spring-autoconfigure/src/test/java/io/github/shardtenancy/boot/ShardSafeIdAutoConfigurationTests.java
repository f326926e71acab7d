package io.github.shardtenancy.boot;

import java.util.UUID;

import io.github.shardtenancy.IdSettings;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.ShardTenancyConfigurationException;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.boot.idsapp.identity.IdentityCounter;
import io.github.shardtenancy.internal.Internals;
import io.github.shardtenancy.testing.ids.Ticket;
import io.github.shardtenancy.testing.ids.Tickets;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration;
import org.springframework.boot.persistence.autoconfigure.EntityScan;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.orm.jpa.SharedEntityManagerCreator;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code @ShardSafeId} and the start-up check of id strategies with the starter, in real (small) Spring contexts with
 * Hibernate on real H2 in-memory databases: a {@code @ShardSafeId} entity persisted through a
 * {@link TransactionTemplate} gets an id from the generator id leased at start; an {@code IDENTITY} tenant entity
 * fails the start with an analysis naming the entity, the remedy and {@code shard-tenancy.ids.check}, unless that
 * property is {@code warn}.
 */
@DisplayName("@ShardSafeId and the id strategy check with the starter")
class ShardSafeIdAutoConfigurationTests {

	private static String h2(String name) {
		return "jdbc:h2:mem:" + name + "-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000";
	}

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ShardTenancyAutoConfiguration.class,
				DataSourceAutoConfiguration.class, HibernateJpaAutoConfiguration.class))
		.withPropertyValues("shard-tenancy.directory.url=" + h2("directory"),
				"shard-tenancy.shards.shard-1.url=" + h2("shard-1"),
				"shard-tenancy.liquibase.shard-changelogs=" + Tickets.CHANGELOG, "shard-tenancy.sync.interval=1h",
				"spring.jmx.enabled=false", "spring.jpa.hibernate.ddl-auto=none");

	@Test
	@DisplayName("a @ShardSafeId entity persisted in a TransactionTemplate gets a Long id from the leased generator id")
	void shardSafeIdThroughTheStarter() {
		this.runner.withUserConfiguration(SafeEntities.class)
			.withPropertyValues("shard-tenancy.ids.lease=10s", "shard-tenancy.ids.epoch=2025-01-01T00:00:00Z")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				ShardTenancy tenancy = context.getBean(ShardTenancy.class);
				int generator = Internals.wiring(tenancy).ids().generatorId().orElseThrow();
				assertThat(Internals.wiring(tenancy).ids().settings().lease()).hasSeconds(10);
				context.getBean(TenantAdmin.class).create("acme");
				EntityManager entityManager = SharedEntityManagerCreator
					.createSharedEntityManager(context.getBean(EntityManagerFactory.class));
				TransactionTemplate transactions = new TransactionTemplate(
						context.getBean(PlatformTransactionManager.class));
				Long id = TenantContext.callAs("acme", () -> transactions.execute((status) -> {
					Ticket ticket = new Ticket("first");
					entityManager.persist(ticket);
					return ticket.getId();
				}));
				assertThat(id).isNotNull();
				assertThat(IdSettings.generatorOf(id)).isEqualTo(generator);
				assertThat(new JdbcTemplate(tenancy.topology().dataSource("shard-1"))
					.queryForObject("SELECT id FROM ticket WHERE tenant_id = 'acme'", Long.class)).isEqualTo(id);
			});
	}

	@Test
	@DisplayName("an IDENTITY tenant entity fails the start, explained by the failure analyzer")
	void identityRefused() {
		this.runner.withUserConfiguration(IdentityEntities.class).run((context) -> {
			assertThat(context).hasFailed();
			Throwable failure = context.getStartupFailure();
			FailureAnalysis analysis = new ShardTenancyFailureAnalyzer().analyze(failure);
			assertThat(analysis).isNotNull();
			assertThat(analysis.getDescription()).contains("shard-tenancy.ids.check", IdentityCounter.class.getName(),
					"IDENTITY");
			assertThat(analysis.getAction()).contains("@io.github.shardtenancy.ShardSafeId",
					"shard-tenancy.ids.check=warn");
			assertThat(analysis.getCause()).isInstanceOf(ShardTenancyConfigurationException.class);
		});
	}

	@Test
	@DisplayName("shard-tenancy.ids.check=warn starts with an IDENTITY tenant entity")
	void identityWarned() {
		this.runner.withUserConfiguration(IdentityEntities.class)
			.withPropertyValues("shard-tenancy.ids.check=warn")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Configuration(proxyBeanMethods = false)
	@EntityScan(basePackageClasses = Ticket.class)
	static class SafeEntities {

	}

	@Configuration(proxyBeanMethods = false)
	@EntityScan(basePackageClasses = IdentityCounter.class)
	static class IdentityEntities {

	}

}
