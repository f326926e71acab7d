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
import io.github.shardtenancy.boot.web.TenantResolutionFilter;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.ShardTopology;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.TenantRouter;
import org.hibernate.context.spi.CurrentTenantIdentifierResolver;
import org.hibernate.engine.jdbc.connections.spi.MultiTenantConnectionProvider;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.junit.jupiter.api.extension.ExtendWith;
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
				assertThat(context).hasSingleBean(ShardTenancy.class)
					.hasSingleBean(ShardTopology.class)
					.hasSingleBean(ShardTenancyMigrator.class)
					.hasSingleBean(TenantRouter.class)
					.hasSingleBean(MultiTenantConnectionProvider.class)
					.hasSingleBean(CurrentTenantIdentifierResolver.class)
					.hasSingleBean(TenantMover.class)
					.hasSingleBean(TenantAdmin.class)
					.hasSingleBean(ShardTenancyHibernatePropertiesCustomizer.class)
					.hasSingleBean(ShardTenancyRetry.class)
					.hasSingleBean(ShardTenancyRetryAdvisor.class)
					.hasSingleBean(ShardTenancyStart.class)
					.hasSingleBean(DataSource.class);
				ShardTenancy tenancy = context.getBean(ShardTenancy.class);
				assertThat(context.getBean(DataSource.class)).isSameAs(tenancy.dataSource());
				assertThat(context.getBean(TenantRouter.class)).isSameAs(tenancy.router());
				assertThat(context.getBean(TenantAdmin.class)).isSameAs(tenancy.admin());
				assertThat(context.getBean(ShardTopology.class).shardIds()).containsExactlyInAnyOrder("shard-1", "shard-2");
				assertThat(context.getBean(TenantRouter.class).isReady()).as("started after the migrations").isTrue();
				assertThat(context.getBean(ShardTenancyRetry.class).settings()).isEqualTo(RetrySettings.defaults());
			});
		}

		@Test
		@DisplayName("properties reach the router and the retry")
		void propertiesAreApplied() {
			runner
				.withPropertyValues("shard-tenancy.cache.maximum-entries=1000", "shard-tenancy.cache.negative-ttl=1s",
						"shard-tenancy.directory-down-policy=fail-closed", "shard-tenancy.retry.max-attempts=3",
						"shard-tenancy.retry.freeze-wait=2s", "shard-tenancy.retry.serialization-failures=false",
						"shard-tenancy.retry.rerun-check=warn")
				.run((context) -> {
					RouterSettings settings = context.getBean(TenantRouter.class).settings();
					assertThat(settings.maximumEntries()).isEqualTo(1000);
					assertThat(settings.negativeTtl()).hasSeconds(1);
					assertThat(settings.directoryDownPolicy().name()).isEqualTo("FAIL_CLOSED");
					RetrySettings retry = context.getBean(ShardTenancyRetry.class).settings();
					assertThat(retry.maxAttempts()).isEqualTo(3);
					assertThat(retry.freezeWait()).hasSeconds(2);
					assertThat(retry.serializationFailures()).isFalse();
					assertThat(retry.rerunCheck()).isEqualTo(RetrySettings.RerunCheck.WARN);
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
					ShardTopology topology = context.getBean(ShardTopology.class);
					for (String shardId : topology.shardIds()) {
						try (java.sql.Connection c = topology.dataSource(shardId).getConnection();
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
		@ExtendWith(OutputCaptureExtension.class)
		@DisplayName("row-level security is on by default, and on H2 shards (which have none) start-up says once, at INFO, that plain JDBC reads are not filtered by tenant")
		void h2ShardsSayTheyHaveNoRowLevelSecurity(CapturedOutput output) {
			runner
				.withPropertyValues("shard-tenancy.liquibase.shard-changelogs=classpath:db/test-shard.xml",
						"shard-tenancy.tenant-tables=note:tenant_id")
				.run((context) -> {
					assertThat(context).hasNotFailed();
					assertThat(context.getBean(ShardTenancyProperties.class).getFence().isRowLevelSecurity()).isTrue();
				});
			String all = output.getAll();
			assertThat(all.split("have no row-level security", -1)).as("notes").hasSize(2);
			assertThat(all).contains("INFO")
				.contains("Shard(s) [shard-1, shard-2] have no row-level security (H2): plain JDBC and native SQL of a "
						+ "tenant read every tenant's rows");
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
		@DisplayName("a reference table that is not a plain SQL identifier fails the start naming the property")
		void invalidReferenceTableFailsTheStart() {
			runner.withPropertyValues("shard-tenancy.reference-tables=pet_type,pet type").run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).hasRootCauseInstanceOf(ShardTenancyConfigurationException.class)
					.rootCause()
					.hasMessageContaining("shard-tenancy.reference-tables")
					.hasMessageContaining("'pet type'");
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
		@DisplayName("when the application defines its own tenancy: the API beans are its")
		void toUserTenancy() {
			runner.withUserConfiguration(UserTenancy.class).run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(ShardTenancy.class);
				ShardTenancy own = context.getBean(ShardTenancy.class);
				assertThat(own).isSameAs(context.getBean("userTenancy"));
				assertThat(context.getBean(TenantRouter.class)).isSameAs(own.router());
				assertThat(context.getBean(ShardTopology.class).shardIds()).containsExactly("own-shard");
				assertThat(own.router().isReady()).as("started by the auto-configuration").isTrue();
			});
		}

		@Test
		@DisplayName("when the application defines its own router")
		void toUserRouter() {
			runner.withUserConfiguration(UserRouter.class).run((context) -> {
				assertThat(context).hasSingleBean(TenantRouter.class);
				assertThat(context.getBean(TenantRouter.class)).isSameAs(context.getBean("userRouter"));
				assertThat(context.getBean(TenantRouter.class)).isNotSameAs(context.getBean(ShardTenancy.class).router());
			});
		}

		@Test
		@DisplayName("a ShardTenancyBuilderCustomizer reaches the builder")
		void builderCustomizer() {
			java.util.List<Boolean> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
			runner.withBean(ShardTenancyBuilderCustomizer.class,
					() -> (builder) -> builder.observer(new io.github.shardtenancy.spi.ShardTenancyObserver() {

						@Override
						public void directoryLookup(long nanos, boolean found) {
							seen.add(found);
						}

					}))
				.run((context) -> {
					assertThat(context).hasNotFailed();
					org.assertj.core.api.Assertions
						.assertThatThrownBy(() -> context.getBean(TenantRouter.class).route("nobody"))
						.isInstanceOf(io.github.shardtenancy.UnknownTenantException.class);
					assertThat(seen).as("the customizer's observer was told of the lookup").containsExactly(false);
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
				assertThat(context.getBean(DataSource.class)).isSameAs(context.getBean("userDataSource"));
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
					assertThat(context).doesNotHaveBean(ShardTenancy.class).doesNotHaveBean(TenantRouter.class);
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
				.withUserConfiguration(UserTenancy.class)
				.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(ShardTenancyMigrator.class));
		}

		@Test
		@DisplayName("the header filter exists only in a servlet web application, unless switched off")
		void webFilter() {
			runner.run((context) -> assertThat(context).doesNotHaveBean(TenantResolutionFilter.class));
			WebApplicationContextRunner web = new WebApplicationContextRunner()
				.withConfiguration(AutoConfigurations.of(ShardTenancyAutoConfiguration.class))
				.withPropertyValues("shard-tenancy.directory.url=" + h2("directory"),
						"shard-tenancy.shards.shard-1.url=" + h2("shard-1"), "shard-tenancy.web.header-name=X-Org",
						"shard-tenancy.web.access.policy=none");
			web.run((context) -> assertThat(context.getBean(TenantHeaderFilter.class).headerName()).isEqualTo("X-Org"));
			web.withPropertyValues("shard-tenancy.web.enabled=false")
				.run((context) -> assertThat(context).doesNotHaveBean(TenantResolutionFilter.class));
			web.withPropertyValues("shard-tenancy.web.resolvers=path,header")
				.run((context) -> assertThat(context.getBean(TenantResolutionFilter.class).resolvers())
					.extracting(Object::toString)
					.containsExactly("path /t/{tenant}/**", "header X-Org"));
			web.withPropertyValues("shard-tenancy.web.resolvers=header,subdomain")
				.run((context) -> assertThat(context).getFailure()
					.rootCause()
					.isInstanceOf(ShardTenancyConfigurationException.class)
					.hasMessageContaining("shard-tenancy.web.base-domain is not set"));
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

	/** A tenancy of the application's: its directory migrated, one shard without the fence (nothing routes here). */
	@Configuration(proxyBeanMethods = false)
	static class UserTenancy {

		@Bean(destroyMethod = "close")
		ShardTenancy userTenancy() {
			com.zaxxer.hikari.HikariConfig directory = new com.zaxxer.hikari.HikariConfig();
			directory.setJdbcUrl(h2("own-directory"));
			com.zaxxer.hikari.HikariConfig shard = new com.zaxxer.hikari.HikariConfig();
			shard.setJdbcUrl(h2("own-shard"));
			ShardTenancy tenancy = ShardTenancy.builder().directory(directory).shard("own-shard", shard).build();
			io.github.shardtenancy.liquibase.ShardTenancyMigrations.migrateDirectory(tenancy.directoryDataSource());
			return tenancy;
		}

	}

	/** A router of the application's: that of a second tenancy on the same directory. */
	@Configuration(proxyBeanMethods = false)
	static class UserRouter implements org.springframework.beans.factory.DisposableBean {

		private ShardTenancy other;

		@Bean
		TenantRouter userRouter(ShardTenancyProperties properties) {
			this.other = OperationsAutoConfigurationTests.secondTenancy(properties);
			return this.other.router();
		}

		@Override
		public void destroy() {
			this.other.close();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserCustomizer {

		@Bean
		ShardTenancyHibernatePropertiesCustomizer userCustomizer(ShardTenancy tenancy) {
			return new ShardTenancyHibernatePropertiesCustomizer(tenancy.connectionProvider(), tenancy.tenantResolver());
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserRetry {

		@Bean
		ShardTenancyRetry userRetry(ShardTenancy tenancy) {
			RetrySettings d = RetrySettings.defaults();
			return new ShardTenancyRetry(tenancy.router(), tenancy.observer(), new RetrySettings(2, d.initialDelay(), d.multiplier(), d.maxDelay(),
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
