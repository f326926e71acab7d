package io.github.shardtenancy.boot;

import io.github.shardtenancy.TenantRouter;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.boot.actuate.WatcherState;
import io.github.shardtenancy.boot.actuate.ShardTenancyEndpoint;
import io.github.shardtenancy.boot.actuate.ShardTenancyEndpointWebExtension;
import io.github.shardtenancy.boot.actuate.ShardTenancyHealthIndicator;
import io.github.shardtenancy.boot.task.TenantTaskDecorator;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.internal.Internals;
import io.github.shardtenancy.micrometer.ShardTenancyMetrics;
import io.github.shardtenancy.micrometer.context.TenantThreadLocalAccessor;
import io.github.shardtenancy.internal.routing.Router;
import io.micrometer.context.ContextSnapshotFactory;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.endpoint.web.WebEndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.availability.ApplicationAvailabilityAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroups;
import org.springframework.boot.health.autoconfigure.actuate.endpoint.AvailabilityProbesAutoConfiguration;
import org.springframework.boot.health.autoconfigure.actuate.endpoint.HealthEndpointAutoConfiguration;
import org.springframework.boot.health.autoconfigure.application.AvailabilityHealthContributorAutoConfiguration;
import org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration;
import org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.task.AsyncTaskExecutor;
import org.springframework.orm.jpa.support.OpenEntityManagerInViewInterceptor;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The operations beans of the auto-configuration (metrics binder, endpoint, readiness health indicator, task
 * decorator, open-in-view warning) in real small Spring contexts on H2 in-memory databases: present by default, backing
 * off to the application's own, and absent without their libraries.
 */
class OperationsAutoConfigurationTests {

	private static String h2(String name) {
		return "jdbc:h2:mem:" + name + "-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000";
	}

	private static final AutoConfigurations BOOT = AutoConfigurations.of(ShardTenancyAutoConfiguration.class,
			ShardTenancyHealthAutoConfiguration.class, MetricsAutoConfiguration.class,
			CompositeMeterRegistryAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class,
			EndpointAutoConfiguration.class, WebEndpointAutoConfiguration.class,
			HealthContributorAutoConfiguration.class, HealthContributorRegistryAutoConfiguration.class,
			HealthEndpointAutoConfiguration.class, ApplicationAvailabilityAutoConfiguration.class,
			AvailabilityHealthContributorAutoConfiguration.class, AvailabilityProbesAutoConfiguration.class,
			TaskExecutionAutoConfiguration.class);

	private final ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(BOOT)
		.withPropertyValues("shard-tenancy.directory.url=" + h2("directory"),
				"shard-tenancy.shards.shard-1.url=" + h2("shard-1"), "shard-tenancy.sync.interval=1h");

	@Nested
	@DisplayName("by default")
	class Defaults {

		@Test
		@DisplayName("the metrics binder, the health indicator and the task decorator are present, and the binder's meters are in Boot's registry")
		void beansArePresent() {
			runner.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).hasSingleBean(ShardTenancyMetrics.class)
					.hasSingleBean(ShardTenancyHealthIndicator.class)
					.hasSingleBean(TenantTaskDecorator.class);
				assertThat(context.getBean(TenantTaskDecorator.class).isTenantRequired()).isFalse();
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				assertThat(registry.find("shardtenancy.router.lookups").functionCounters()).hasSize(3);
				assertThat(registry.get("shardtenancy.router.directory.version").gauge().value())
					.isEqualTo(context.getBean(TenantRouter.class).version());
				assertThat(Internals.router(context.getBean(ShardTenancy.class)).observer())
					.isSameAs(context.getBean(ShardTenancyMetrics.class));
			});
		}

		@Test
		@DisplayName("Boot's task executor runs tasks with the submitter's tenant")
		void bootExecutorPropagatesTheTenant() {
			runner.run((context) -> {
				AsyncTaskExecutor executor = context.getBean("applicationTaskExecutor", AsyncTaskExecutor.class);
				String seen = TenantContext.callAs("acme",
						() -> executor.submit(TenantContext::current).get(10, TimeUnit.SECONDS));
				assertThat(seen).isEqualTo("acme");
			});
		}

		@Test
		@DisplayName("the endpoint exists only when exposed, as for any Actuator endpoint")
		void endpointOnlyWhenExposed() {
			runner.run((context) -> assertThat(context).doesNotHaveBean(ShardTenancyEndpoint.class)
				.doesNotHaveBean(ShardTenancyEndpointWebExtension.class));
			new WebApplicationContextRunner().withConfiguration(BOOT)
				.withPropertyValues("shard-tenancy.directory.url=" + h2("directory"),
						"shard-tenancy.shards.shard-1.url=" + h2("shard-1"), "shard-tenancy.sync.interval=1h",
						"management.endpoints.web.exposure.include=shardtenancy", "shard-tenancy.web.access.policy=none")
				.run((context) -> {
					assertThat(context).hasSingleBean(ShardTenancyEndpoint.class)
						.hasSingleBean(ShardTenancyEndpointWebExtension.class);
					ShardTenancyEndpoint.ShardTenancyDescriptor overview = context.getBean(ShardTenancyEndpoint.class)
						.overview();
					assertThat(overview.ready()).isTrue();
					assertThat(overview.shards()).containsOnlyKeys("shard-1");
					assertThat(overview.listener()).as("no push listener without PostgreSQL").isNull();
				});
		}

		@Test
		@DisplayName("with availability probes, the readiness group includes shardTenancy, unless the application lists the group's members itself")
		void readinessGroupMembership() {
			runner.withPropertyValues("management.endpoint.health.probes.enabled=true").run((context) -> {
				HealthEndpointGroups groups = context.getBean(HealthEndpointGroups.class);
				assertThat(groups.get("readiness").isMember("shardTenancy")).isTrue();
				assertThat(groups.get("readiness").isMember("readinessState")).isTrue();
				assertThat(groups.get("liveness").isMember("shardTenancy")).isFalse();
			});
			runner
				.withPropertyValues("management.endpoint.health.probes.enabled=true",
						"management.endpoint.health.group.readiness.include=readinessState")
				.run((context) -> assertThat(
						context.getBean(HealthEndpointGroups.class).get("readiness").isMember("shardTenancy"))
					.isFalse());
		}

		@Test
		@DisplayName("management.health.shardtenancy.enabled=false removes the health indicator")
		void healthIndicatorSwitchedOff() {
			runner.withPropertyValues("management.health.shardtenancy.enabled=false")
				.run((context) -> assertThat(context).doesNotHaveBean(ShardTenancyHealthIndicator.class));
		}

	}

	@Nested
	@DisplayName("health")
	class Health {

		@Test
		@DisplayName("DOWN until the router has loaded the directory, then UP, with directory and listener details")
		void downUntilLoaded() {
			runner.withUserConfiguration(UnstartedRouter.class).run((context) -> {
				Router router = (Router) context.getBean(TenantRouter.class);
				ShardTenancyHealthIndicator health = context.getBean(ShardTenancyHealthIndicator.class);
				assertThat(health.health().getStatus()).isEqualTo(Status.DOWN);
				assertThat(health.health().getDetails()).containsEntry("ready", false)
					.containsEntry("listener", "none")
					.containsEntry("directoryDownPolicy", "SERVE_FROM_CACHE");

				router.loadSnapshot();

				assertThat(health.health().getStatus()).isEqualTo(Status.UP);
				assertThat(health.health().getDetails()).containsEntry("ready", true)
					.containsEntry("directoryVersion", router.version());
			});
		}

		@Test
		@DisplayName("DOWN while the directory is unreachable under the fail-closed policy, with the time it went down")
		void downWhileDirectoryUnreachableAndFailClosed() {
			runner.withPropertyValues("shard-tenancy.directory-down-policy=fail-closed").run((context) -> {
				TenantRouter router = context.getBean(TenantRouter.class);
				ShardTenancyHealthIndicator health = context.getBean(ShardTenancyHealthIndicator.class);
				assertThat(health.health().getStatus()).isEqualTo(Status.UP);
				try (java.sql.Connection c = context.getBean(ShardTenancy.class).directoryDataSource().getConnection()) {
					c.createStatement().execute("ALTER TABLE shard_directory_version RENAME TO moved_away");
				}
				try {
					assertThat(org.assertj.core.api.Assertions.catchThrowable(router::refresh)).isNotNull();

					assertThat(health.health().getStatus()).isEqualTo(Status.DOWN);
					assertThat(health.health().getDetails()).containsKey("directoryDownSince")
						.containsEntry("directoryDownPolicy", "FAIL_CLOSED");
				}
				finally {
					try (java.sql.Connection c = context.getBean(ShardTenancy.class).directoryDataSource().getConnection()) {
						c.createStatement().execute("ALTER TABLE moved_away RENAME TO shard_directory_version");
					}
				}
				router.refresh();
				assertThat(health.health().getStatus()).isEqualTo(Status.UP);
			});
		}

	}

	@Nested
	@DisplayName("backs off")
	class BacksOff {

		@Test
		@DisplayName("to the application's own metrics binder, health indicator, task decorator and endpoint")
		void toUserBeans() {
			new WebApplicationContextRunner().withConfiguration(BOOT)
				.withPropertyValues("shard-tenancy.directory.url=" + h2("directory"),
						"shard-tenancy.shards.shard-1.url=" + h2("shard-1"), "shard-tenancy.sync.interval=1h",
						"management.endpoints.web.exposure.include=shardtenancy", "shard-tenancy.web.access.policy=none")
				.withUserConfiguration(UserBeans.class)
				.run((context) -> {
					assertThat(context).hasSingleBean(ShardTenancyMetrics.class)
						.hasSingleBean(ShardTenancyHealthIndicator.class)
						.hasSingleBean(TenantTaskDecorator.class)
						.hasSingleBean(ShardTenancyEndpoint.class);
					assertThat(context.getBean(ShardTenancyMetrics.class)).isSameAs(context.getBean("userMetrics"));
					assertThat(context.getBean(ShardTenancyHealthIndicator.class))
						.isSameAs(context.getBean("userHealth"));
					assertThat(context.getBean(TenantTaskDecorator.class).isTenantRequired()).isTrue();
					assertThat(context.getBean(ShardTenancyEndpoint.class)).isSameAs(context.getBean("userEndpoint"));
				});
		}

	}

	@Nested
	@DisplayName("is absent without its libraries")
	class Absent {

		@Test
		@DisplayName("without Micrometer: no metrics binder; the rest still starts")
		void withoutMicrometer() {
			runner.withClassLoader(new FilteredClassLoader(MeterBinder.class)).run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).doesNotHaveBean(ShardTenancyMetrics.class);
				assertThat(context.getBean(TenantRouter.class).isReady()).isTrue();
			});
		}

		@Test
		@DisplayName("without context-propagation or the micrometer module: no task decorator and no metrics binder")
		void withoutContextPropagation() {
			runner.withClassLoader(new FilteredClassLoader(ContextSnapshotFactory.class))
				.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(TenantTaskDecorator.class));
			runner.withClassLoader(new FilteredClassLoader(TenantThreadLocalAccessor.class, ShardTenancyMetrics.class))
				.run((context) -> assertThat(context).hasNotFailed()
					.doesNotHaveBean(TenantTaskDecorator.class)
					.doesNotHaveBean(ShardTenancyMetrics.class));
		}

		@Test
		@DisplayName("without Actuator: no endpoint, no health indicator; the rest still starts")
		void withoutActuator() {
			new ApplicationContextRunner()
				.withConfiguration(AutoConfigurations.of(ShardTenancyAutoConfiguration.class,
						ShardTenancyHealthAutoConfiguration.class))
				.withPropertyValues("shard-tenancy.directory.url=" + h2("directory"),
						"shard-tenancy.shards.shard-1.url=" + h2("shard-1"), "shard-tenancy.sync.interval=1h",
						"management.endpoints.web.exposure.include=shardtenancy", "shard-tenancy.web.access.policy=none")
				.withClassLoader(new FilteredClassLoader("org.springframework.boot.actuate",
						"org.springframework.boot.health"))
				.run((context) -> {
					assertThat(context).hasNotFailed();
					assertThat(context).doesNotHaveBean(ShardTenancyEndpoint.class)
						.doesNotHaveBean(ShardTenancyHealthIndicator.class)
						.doesNotHaveBean(WatcherState.class);
					assertThat(context).hasSingleBean(io.github.shardtenancy.ShardTopology.class);
				});
		}

	}

	@Nested
	@DisplayName("open session in view")
	@ExtendWith(OutputCaptureExtension.class)
	class OpenInView {

		private final WebApplicationContextRunner web = new WebApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(ShardTenancyAutoConfiguration.class))
			.withPropertyValues("shard-tenancy.directory.url=" + h2("directory"),
					"shard-tenancy.shards.shard-1.url=" + h2("shard-1"), "shard-tenancy.sync.interval=1h",
					"shard-tenancy.web.access.policy=none");

		@Test
		@DisplayName("a warning is logged at start-up when the open-in-view interceptor is registered")
		void warnsWhenOn(CapturedOutput output) {
			this.web.withUserConfiguration(OpenInViewInterceptor.class)
				.run((context) -> assertThat(context).hasNotFailed());

			assertThat(output).contains("spring.jpa.open-in-view is on").contains("TenantSwitchedException");
		}

		@Test
		@DisplayName("no warning without it")
		void silentWhenOff(CapturedOutput output) {
			this.web.run((context) -> assertThat(context).hasNotFailed());

			assertThat(output).doesNotContain("spring.jpa.open-in-view is on");
		}

	}

	/** A router of the application's, not started: that of a second tenancy on the same directory. */
	@Configuration(proxyBeanMethods = false)
	static class UnstartedRouter implements org.springframework.beans.factory.DisposableBean {

		private ShardTenancy other;

		@Bean
		TenantRouter userRouter(ShardTenancyProperties properties) {
			this.other = secondTenancy(properties);
			return this.other.router();
		}

		@Override
		public void destroy() {
			this.other.close();
		}

	}

	/**
	 * @param properties the application's settings
	 * @return a tenancy on the application's directory and first shard, not started
	 */
	static ShardTenancy secondTenancy(ShardTenancyProperties properties) {
		com.zaxxer.hikari.HikariConfig directory = new com.zaxxer.hikari.HikariConfig();
		directory.setJdbcUrl(properties.getDirectory().getUrl());
		com.zaxxer.hikari.HikariConfig shard = new com.zaxxer.hikari.HikariConfig();
		shard.setJdbcUrl(properties.getShards().get("shard-1").getUrl());
		return ShardTenancy.builder().directory(directory).shard("shard-1", shard).build();
	}

	@Configuration(proxyBeanMethods = false)
	static class UserBeans {

		@Bean
		ShardTenancyMetrics userMetrics(TenantRouter router) {
			return new ShardTenancyMetrics(router);
		}

		@Bean
		ShardTenancyHealthIndicator userHealth(TenantRouter router) {
			return new ShardTenancyHealthIndicator(router, WatcherState.NONE);
		}

		@Bean
		TenantTaskDecorator userDecorator() {
			return TenantTaskDecorator.requiringTenant();
		}

		@Bean
		ShardTenancyEndpoint userEndpoint(ShardTenancy tenancy,
				ObjectProvider<io.github.shardtenancy.TenantMover> mover) {
			return new ShardTenancyEndpoint(tenancy, WatcherState.NONE, mover);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OpenInViewInterceptor {

		@Bean
		OpenEntityManagerInViewInterceptor openEntityManagerInViewInterceptor() {
			return new OpenEntityManagerInViewInterceptor() {

				@Override
				public void setBeanFactory(org.springframework.beans.factory.BeanFactory beanFactory) {
					// no EntityManagerFactory in this small context: only the bean's presence matters
				}

			};
		}

	}

}
