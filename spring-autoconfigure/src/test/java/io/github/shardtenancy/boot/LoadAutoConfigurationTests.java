package io.github.shardtenancy.boot;

import java.util.UUID;

import io.github.shardtenancy.LoadMeasure;
import io.github.shardtenancy.Rebalancer;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.ShardTenancyConfigurationException;
import io.github.shardtenancy.TenantLoads;
import io.github.shardtenancy.micrometer.TenantLoadMetrics;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The load figures and rebalancer beans of the auto-configuration, in real (small) Spring contexts on H2. */
@DisplayName("Load figures and rebalancer auto-configuration")
class LoadAutoConfigurationTests {

	private static String h2(String name) {
		return "jdbc:h2:mem:" + name + "-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000";
	}

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ShardTenancyAutoConfiguration.class))
		.withPropertyValues("shard-tenancy.directory.url=" + h2("directory"),
				"shard-tenancy.shards.shard-1.url=" + h2("shard-1"), "shard-tenancy.shards.shard-2.url=" + h2("shard-2"),
				"shard-tenancy.sync.interval=1h", "shard-tenancy.liquibase.shard-changelogs=classpath:db/test-shard.xml",
				"shard-tenancy.tenant-tables=note:tenant_id", "shard-tenancy.actor=boot@test");

	@Test
	@DisplayName("by default: the beans exist, traffic is not counted, no gauges, and the rebalancer only proposes")
	void defaults() {
		this.runner.run(context -> {
			assertThat(context).hasNotFailed()
				.hasSingleBean(TenantLoads.class)
				.hasSingleBean(Rebalancer.class)
				.hasSingleBean(RebalancerRuns.class)
				.doesNotHaveBean(TenantLoadMetrics.class);
			assertThat(context.getBean(TenantLoads.class).tracking()).isFalse();
			RebalancerRuns runs = context.getBean(RebalancerRuns.class);
			assertThat(runs.executionAllowed()).isFalse();
			assertThat(runs.settings().measure()).isEqualTo(LoadMeasure.TENANTS);
			for (String tenant : java.util.List.of("a", "b", "c", "d")) {
				context.getBean(ShardTenancy.class).admin().create(tenant, "shard-1");
			}
			// 4 and 0 around a median of 2: one move makes it 3 and 1, within one tenant of the median.
			assertThat(runs.propose().moves()).hasSize(1);
			assertThatThrownBy(runs::startExecution).isInstanceOf(IllegalStateException.class)
				.hasMessageContaining("shard-tenancy.rebalancer.execute is false");
			assertThat(context.getBean(ShardTenancy.class).admin().find("b").orElseThrow().shardId())
				.isEqualTo("shard-1");
		});
	}

	@Test
	@DisplayName("with shard-tenancy.load.enabled: traffic is counted and the gauges are bound; settings are bound")
	void enabled() {
		this.runner
			.withPropertyValues("shard-tenancy.load.enabled=true", "shard-tenancy.rebalancer.measure=rows",
					"shard-tenancy.rebalancer.band=0.3", "shard-tenancy.rebalancer.max-concurrent-moves=4")
			.run(context -> {
				assertThat(context).hasNotFailed().hasSingleBean(TenantLoadMetrics.class);
				assertThat(context.getBean(TenantLoads.class).tracking()).isTrue();
				RebalancerRuns runs = context.getBean(RebalancerRuns.class);
				assertThat(runs.settings().measure()).isEqualTo(LoadMeasure.ROWS);
				assertThat(runs.settings().band()).isEqualTo(0.3);
				assertThat(runs.settings().maxConcurrentMoves()).isEqualTo(4);
			});
	}

	@Test
	@DisplayName("an out-of-range setting fails the start naming the property")
	void invalid() {
		this.runner.withPropertyValues("shard-tenancy.load.hot-threshold=1.5").run(context -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(ShardTenancyConfigurationException.class)
				.hasMessageContaining("shard-tenancy.load.hot-threshold");
		});
	}

}
