package io.github.shardtenancy.boot;

import io.github.shardtenancy.retry.RetrySettings;
import java.util.UUID;

import javax.sql.DataSource;

import io.github.shardtenancy.ShardTenancyConfigurationException;
import io.github.shardtenancy.RouterSettings;
import io.github.shardtenancy.TenantMover;
import io.github.shardtenancy.boot.retry.ShardTenancyRetry;
import io.github.shardtenancy.boot.retry.ShardTenancyRetryAdvisor;
import io.github.shardtenancy.boot.web.TenantHeaderFilter;
import io.github.shardtenancy.internal.directory.Directory;
import io.github.shardtenancy.internal.hibernate.ShardMultiTenantConnectionProvider;
import io.github.shardtenancy.internal.hibernate.TenantIdentifierResolver;
import io.github.shardtenancy.internal.hibernate.TenantRoutingDataSource;
import io.github.shardtenancy.internal.lifecycle.TenantAdmin;
import io.github.shardtenancy.internal.routing.Router;
import io.github.shardtenancy.internal.topology.Topology;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The auto-configuration's beans, conditions and failure analysis, in real (small) Spring contexts on real H2
 * in-memory databases.
 */
class ShardTenancyAutoConfigurationTests {

	private static String h2(String name) {
		return "jdbc:h2:mem:" + name + "-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000";
	}

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ShardTenancyAutoConfiguration.class))
		.withPropertyValues("shard-tenancy.directory.url=" + h2("directory"),
				"shard-tenancy.shards.shard-1.url=" + h2("shard-1"),
				"shard-tenancy.shards.shard-2.url=" + h2("shard-2"), "shard-tenancy.sync.interval=1h");

	@Nested
	@DisplayName("by default")
	class Defaults {

		@Test
		@DisplayName("every auto-configured bean is present")
		void everyBeanIsPresent() {
			runner.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).hasSingleBean(Topology.class)
					.hasSingleBean(Directory.class)
					.hasSingleBean(ShardTenancyMigrator.class)
					.hasSingleBean(Router.class)
					.hasSingleBean(ShardMultiTenantConnectionProvider.class)
					.hasSingleBean(TenantIdentifierResolver.class)
					.hasSingleBean(TenantMover.class)
					.hasSingleBean(TenantAdmin.class)
					.hasSingleBean(ShardTenancyHibernatePropertiesCustomizer.class)
					.hasSingleBean(ShardTenancyRetry.class)
					.hasSingleBean(ShardTenancyRetryAdvisor.class)
					.hasSingleBean(FenceWriteCheckInstaller.class)
					.hasSingleBean(DataSource.class);
				assertThat(context.getBean(DataSource.class)).isInstanceOf(TenantRoutingDataSource.class);
				assertThat(context.getBean(Topology.class).shardIds()).containsExactly("shard-1", "shard-2");
				assertThat(context.getBean(Router.class).isReady()).as("started after the migrations").isTrue();
				assertThat(context.getBean(ShardTenancyRetry.class).settings()).isEqualTo(RetrySettings.defaults());
			});
		}

		@Test
		@DisplayName("properties reach the router and the retry")
		void propertiesAreApplied() {
			runner
				.withPropertyValues("shard-tenancy.cache.maximum-entries=1000", "shard-tenancy.cache.negative-ttl=1s",
						"shard-tenancy.directory-down-policy=fail-closed", "shard-tenancy.retry.max-attempts=3",
						"shard-tenancy.retry.freeze-wait=2s", "shard-tenancy.retry.serialization-failures=false")
				.run((context) -> {
					RouterSettings settings = context.getBean(Router.class).settings();
					assertThat(settings.maximumEntries()).isEqualTo(1000);
					assertThat(settings.negativeTtl()).hasSeconds(1);
					assertThat(settings.directoryDownPolicy().name()).isEqualTo("FAIL_CLOSED");
					RetrySettings retry = context.getBean(ShardTenancyRetry.class).settings();
					assertThat(retry.maxAttempts()).isEqualTo(3);
					assertThat(retry.freezeWait()).hasSeconds(2);
					assertThat(retry.serializationFailures()).isFalse();
				});
		}

		@Test
		@DisplayName("configured tenant tables get the fence write check on every shard, after the shard changelogs ran")
		void configuredTenantTablesAreGuarded() {
			runner
				.withPropertyValues("shard-tenancy.liquibase.shard-changelogs=classpath:db/test-shard.xml",
						"shard-tenancy.tenant-tables=note:tenant_id")
				.run((context) -> {
					assertThat(context).hasNotFailed();
					Topology topology = context.getBean(Topology.class);
					for (String shardId : topology.shardIds()) {
						try (java.sql.Connection c = topology.shard(shardId).dataSource().getConnection();
								java.sql.ResultSet rs = c.createStatement()
									.executeQuery("SELECT COUNT(DISTINCT TRIGGER_NAME) FROM INFORMATION_SCHEMA.TRIGGERS "
											+ "WHERE TRIGGER_NAME = 'SHARD_FENCE_NOTE'")) {
							rs.next();
							assertThat(rs.getInt(1)).as(shardId).isEqualTo(1);
						}
					}
				});
		}

		@Test
		@DisplayName("a configured tenant table missing on the shards fails the start naming table and shard")
		void missingTenantTableFailsTheStart() {
			runner.withPropertyValues("shard-tenancy.tenant-tables=missing_table:tenant_id").run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).isInstanceOf(ShardTenancyConfigurationException.class)
					.hasMessageContaining("table missing_table")
					.hasMessageContaining("shard 'shard-1'");
			});
		}

		@Test
		@DisplayName("the actor defaults to app@ and the host name")
		void actorDefaultsToHostName() {
			runner.run((context) -> assertThat(context.getBean(ShardTenancyProperties.class).getActor())
				.startsWith("app@")
				.hasSizeGreaterThan(4));
		}

	}

	@Nested
	@DisplayName("backs off")
	class BacksOff {

		@Test
		@DisplayName("when the application defines its own router")
		void toUserRouter() {
			runner.withUserConfiguration(UserRouter.class).run((context) -> {
				assertThat(context).hasSingleBean(Router.class);
				assertThat(context.getBean(Router.class)).isSameAs(context.getBean("userRouter"));
			});
		}

		@Test
		@DisplayName("when the application defines its own topology")
		void toUserTopology() {
			runner.withUserConfiguration(UserTopology.class).run((context) -> {
				assertThat(context).hasSingleBean(Topology.class);
				assertThat(context.getBean(Topology.class).shardIds()).containsExactly("own-shard");
			});
		}

		@Test
		@DisplayName("when the application defines its own Hibernate properties customizer")
		void toUserCustomizer() {
			runner.withUserConfiguration(UserCustomizer.class).run((context) -> {
				assertThat(context).hasSingleBean(ShardTenancyHibernatePropertiesCustomizer.class);
				assertThat(context.getBean(ShardTenancyHibernatePropertiesCustomizer.class))
					.isSameAs(context.getBean("userCustomizer"));
			});
		}

		@Test
		@DisplayName("when the application defines its own retry, which the advisor then uses")
		void toUserRetry() {
			runner.withUserConfiguration(UserRetry.class).run((context) -> {
				assertThat(context).hasSingleBean(ShardTenancyRetry.class);
				assertThat(context.getBean(ShardTenancyRetry.class).settings().maxAttempts()).isEqualTo(2);
				assertThat(context).hasSingleBean(ShardTenancyRetryAdvisor.class);
			});
		}

		@Test
		@DisplayName("when the application defines its own DataSource")
		void toUserDataSource() {
			runner.withUserConfiguration(UserDataSource.class).run((context) -> {
				assertThat(context).hasSingleBean(DataSource.class);
				assertThat(context.getBean(DataSource.class)).isNotInstanceOf(TenantRoutingDataSource.class);
			});
		}

	}

	@Nested
	@DisplayName("switches")
	class Switches {

		@Test
		@DisplayName("shard-tenancy.enabled=false turns everything off")
		void disabled() {
			new ApplicationContextRunner()
				.withConfiguration(AutoConfigurations.of(ShardTenancyAutoConfiguration.class))
				.withPropertyValues("shard-tenancy.enabled=false")
				.run((context) -> {
					assertThat(context).hasNotFailed();
					assertThat(context).doesNotHaveBean(Topology.class).doesNotHaveBean(Router.class);
				});
		}

		@Test
		@DisplayName("retry.enabled=false removes the automatic retry but keeps the programmatic one")
		void retryDisabled() {
			runner.withPropertyValues("shard-tenancy.retry.enabled=false").run((context) -> {
				assertThat(context).doesNotHaveBean(ShardTenancyRetryAdvisor.class);
				assertThat(context).hasSingleBean(ShardTenancyRetry.class);
			});
		}

		@Test
		@DisplayName("liquibase.enabled=false skips the migrations")
		void liquibaseDisabled() {
			runner.withPropertyValues("shard-tenancy.liquibase.enabled=false")
				.withUserConfiguration(UserRouter.class)
				.run((context) -> assertThat(context).doesNotHaveBean(ShardTenancyMigrator.class));
		}

		@Test
		@DisplayName("the header filter exists only in a servlet web application, unless switched off")
		void webFilter() {
			runner.run((context) -> assertThat(context).doesNotHaveBean(TenantHeaderFilter.class));
			WebApplicationContextRunner web = new WebApplicationContextRunner()
				.withConfiguration(AutoConfigurations.of(ShardTenancyAutoConfiguration.class))
				.withPropertyValues("shard-tenancy.directory.url=" + h2("directory"),
						"shard-tenancy.shards.shard-1.url=" + h2("shard-1"), "shard-tenancy.web.header-name=X-Org");
			web.run((context) -> assertThat(context.getBean(TenantHeaderFilter.class).headerName()).isEqualTo("X-Org"));
			web.withPropertyValues("shard-tenancy.web.enabled=false")
				.run((context) -> assertThat(context).doesNotHaveBean(TenantHeaderFilter.class));
		}

	}

	@Nested
	@DisplayName("fails with an explanation")
	class Failures {

		private FailureAnalysis analyze(Throwable failure) {
			return new ShardTenancyFailureAnalyzer().analyze(failure);
		}

		@Test
		@DisplayName("when no shards are configured")
		void noShards() {
			new ApplicationContextRunner()
				.withConfiguration(AutoConfigurations.of(ShardTenancyAutoConfiguration.class))
				.withPropertyValues("shard-tenancy.directory.url=" + h2("directory"))
				.run((context) -> {
					assertThat(context).hasFailed();
					assertThat(context.getStartupFailure()).hasRootCauseInstanceOf(ShardTenancyConfigurationException.class);
					FailureAnalysis analysis = analyze(context.getStartupFailure());
					assertThat(analysis).isNotNull();
					assertThat(analysis.getDescription()).contains("shard-tenancy.shards").contains("No shards");
					assertThat(analysis.getAction()).contains("shard-tenancy.shards");
				});
		}

		@Test
		@DisplayName("when no directory URL is configured")
		void noDirectory() {
			new ApplicationContextRunner()
				.withConfiguration(AutoConfigurations.of(ShardTenancyAutoConfiguration.class))
				.withPropertyValues("shard-tenancy.shards.shard-1.url=" + h2("shard-1"))
				.run((context) -> {
					assertThat(context).hasFailed();
					assertThat(analyze(context.getStartupFailure()).getDescription())
						.contains("shard-tenancy.directory.url");
				});
		}

		@Test
		@DisplayName("when a shard id is malformed")
		void badShardId() {
			new ApplicationContextRunner()
				.withConfiguration(AutoConfigurations.of(ShardTenancyAutoConfiguration.class))
				.withPropertyValues("shard-tenancy.directory.url=" + h2("directory"),
						"shard-tenancy.shards.[-bad!].url=" + h2("shard"))
				.run((context) -> {
					assertThat(context).hasFailed();
					assertThat(analyze(context.getStartupFailure()).getDescription())
						.contains("Invalid shard id '-bad!'");
				});
		}

		@Test
		@DisplayName("when a tenant table entry is not table:column")
		void badTenantTable() {
			runner.withPropertyValues("shard-tenancy.tenant-tables=orders").run((context) -> {
				assertThat(context).hasFailed();
				assertThat(analyze(context.getStartupFailure()).getDescription())
					.contains("shard-tenancy.tenant-tables")
					.contains("expected table:column");
			});
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserRouter {

		@Bean(destroyMethod = "close")
		Router userRouter(Directory directory) {
			io.github.shardtenancy.liquibase.ShardTenancyMigrations.migrateDirectory(directory.dataSource());
			return new Router(directory, RouterSettings.defaults());
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserTopology {

		@Bean(destroyMethod = "close")
		Topology userTopology() {
			Topology topology = new Topology();
			com.zaxxer.hikari.HikariConfig config = new com.zaxxer.hikari.HikariConfig();
			config.setJdbcUrl(h2("own-shard"));
			topology.addShard("own-shard", config);
			return topology;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserCustomizer {

		@Bean
		ShardTenancyHibernatePropertiesCustomizer userCustomizer(ShardMultiTenantConnectionProvider provider) {
			return new ShardTenancyHibernatePropertiesCustomizer(provider, new TenantIdentifierResolver());
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserRetry {

		@Bean
		ShardTenancyRetry userRetry(Router router) {
			RetrySettings d = RetrySettings.defaults();
			return new ShardTenancyRetry(router, new RetrySettings(2, d.initialDelay(), d.multiplier(), d.maxDelay(),
					d.jitter(), d.freezeWait(), true), java.util.List.of());
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserDataSource {

		@Bean
		DataSource userDataSource() {
			org.h2.jdbcx.JdbcDataSource dataSource = new org.h2.jdbcx.JdbcDataSource();
			dataSource.setURL(h2("user"));
			return dataSource;
		}

	}

}
