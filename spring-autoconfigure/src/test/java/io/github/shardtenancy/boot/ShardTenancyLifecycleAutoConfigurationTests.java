package io.github.shardtenancy.boot;

import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.UUID;

import com.zaxxer.hikari.HikariConfig;
import io.github.shardtenancy.lifecycle.DirectoryHistory;
import io.github.shardtenancy.lifecycle.TenantLifecycle;
import io.github.shardtenancy.placement.LeastLoadedPlacement;
import io.github.shardtenancy.placement.PlacementRequest;
import io.github.shardtenancy.placement.RegionAwarePlacement;
import io.github.shardtenancy.placement.SlotMap;
import io.github.shardtenancy.reconcile.Reconciler;
import io.github.shardtenancy.registry.ShardRecord;
import io.github.shardtenancy.registry.ShardRegistry;
import io.github.shardtenancy.registry.ShardState;
import io.github.shardtenancy.spi.PlacementPolicy;
import io.github.shardtenancy.topology.ShardTopology;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/** The tenant lifecycle beans of the auto-configuration, in real (small) Spring contexts on H2. */
@DisplayName("Tenant lifecycle auto-configuration")
class ShardTenancyLifecycleAutoConfigurationTests {

	private static String h2(String name) {
		return "jdbc:h2:mem:" + name + "-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000";
	}

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ShardTenancyAutoConfiguration.class))
		.withPropertyValues("shard-tenancy.directory.url=" + h2("directory"),
				"shard-tenancy.shards.shard-1.url=" + h2("shard-1"), "shard-tenancy.shards.shard-1.region=eu",
				"shard-tenancy.shards.shard-2.url=" + h2("shard-2"), "shard-tenancy.shards.shard-2.region=us",
				"shard-tenancy.sync.interval=1h", "shard-tenancy.liquibase.shard-changelogs=classpath:db/test-shard.xml",
				"shard-tenancy.tenant-tables=note:tenant_id", "shard-tenancy.actor=boot@test");

	@Test
	void registersTheConfiguredShardsAndPlacesNewTenantsOnTheLeastLoaded() {
		this.runner.run(context -> {
			assertThat(context).hasNotFailed();
			assertThat(context).hasSingleBean(TenantLifecycle.class)
				.hasSingleBean(ShardRegistry.class)
				.hasSingleBean(SlotMap.class)
				.hasSingleBean(Reconciler.class)
				.hasSingleBean(DirectoryHistory.class)
				.hasSingleBean(ShardTenancyLifecycleScheduler.class);
			assertThat(context.getBean(PlacementPolicy.class)).isInstanceOf(LeastLoadedPlacement.class);
			assertThat(context.getBean(ShardRegistry.class).list())
				.extracting(ShardRecord::shardId, ShardRecord::region, ShardRecord::state)
				.containsExactly(org.assertj.core.groups.Tuple.tuple("shard-1", "eu", ShardState.ACTIVE),
						org.assertj.core.groups.Tuple.tuple("shard-2", "us", ShardState.ACTIVE));
			TenantLifecycle lifecycle = context.getBean(TenantLifecycle.class);
			assertThat(lifecycle.create("a").shardId()).isEqualTo("shard-1");
			assertThat(lifecycle.create("b").shardId()).isEqualTo("shard-2");
			assertThat(context.getBean(DirectoryHistory.class).ownerAt("a", java.time.Instant.now().plusSeconds(60))
				.orElseThrow().changedBy()).isEqualTo("boot@test");
			assertThat(context.getBean(ShardTenancyLifecycleScheduler.class).isReconciliationScheduled()).isFalse();
			assertThat(context.getBean(Reconciler.class).lastReport()).as("no scheduled run by default").isEmpty();
		});
	}

	@Test
	void theRegionPolicyPlacesByTheShardsConfiguredRegion() {
		this.runner.withPropertyValues("shard-tenancy.lifecycle.placement=region",
				"shard-tenancy.lifecycle.default-region=us")
			.run(context -> {
				assertThat(context.getBean(PlacementPolicy.class)).isInstanceOf(RegionAwarePlacement.class);
				TenantLifecycle lifecycle = context.getBean(TenantLifecycle.class);
				assertThat(lifecycle.create("eu-1", PlacementRequest.inRegion("eu")).shardId()).isEqualTo("shard-1");
				assertThat(lifecycle.create("eu-2", PlacementRequest.inRegion("eu")).shardId()).isEqualTo("shard-1");
				assertThat(lifecycle.create("us-by-default").shardId()).isEqualTo("shard-2");
			});
	}

	@Test
	void aShardRegisteredAtRuntimeIsMigratedWithTheApplicationsChangelogsAndGuardedByTheFence() {
		this.runner.run(context -> {
			TenantLifecycle lifecycle = context.getBean(TenantLifecycle.class);
			lifecycle.create("on-1");
			lifecycle.create("on-2");
			ShardRegistry registry = context.getBean(ShardRegistry.class);
			HikariConfig config = new HikariConfig();
			config.setJdbcUrl(h2("shard-3"));
			registry.register("shard-3", "eu", config);
			ShardTopology.Shard shard = context.getBean(ShardTopology.class).shard("shard-3");
			try (Connection c = shard.dataSource().getConnection();
					ResultSet rs = c.createStatement().executeQuery("SELECT COUNT(DISTINCT TRIGGER_NAME) FROM "
							+ "INFORMATION_SCHEMA.TRIGGERS WHERE TRIGGER_NAME = 'SHARD_FENCE_NOTE'")) {
				rs.next();
				assertThat(rs.getInt(1)).isEqualTo(1);
			}
			assertThat(lifecycle.create("first").shardId()).as("the new, empty shard is the least loaded")
				.isEqualTo("shard-3");
		});
	}

	@Test
	void scheduledReconciliationRunsWhenEnabledAndExposesItsLastReport() {
		this.runner.withPropertyValues("shard-tenancy.reconciliation.enabled=true",
				"shard-tenancy.reconciliation.interval=100ms")
			.run(context -> {
				context.getBean(TenantLifecycle.class).create("without-rows");
				Reconciler reconciler = context.getBean(Reconciler.class);
				long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
				while (reconciler.lastReport().map(r -> r.missing().isEmpty()).orElse(true)
						&& System.nanoTime() < deadline) {
					Thread.sleep(20);
				}
				assertThat(reconciler.lastReport()).isPresent();
				assertThat(reconciler.lastReport().orElseThrow().missing())
					.extracting(io.github.shardtenancy.reconcile.ReconciliationReport.MissingRows::tenantId)
					.containsExactly("without-rows");
			});
	}

}
