package io.github.shardtenancy.boot;

import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.Rebalancer;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.TenantLoads;
import io.github.shardtenancy.micrometer.TenantLoadMetrics;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.task.SimpleAsyncTaskExecutor;

/**
 * Load figures and the rebalancer: traffic counting on the tenancy ({@code shard-tenancy.load.enabled}), the
 * {@link TenantLoads} and {@link Rebalancer} beans, the rebalancer's runs ({@code shard-tenancy.rebalancer.*}), and,
 * with {@code hibernate-shard-tenancy-micrometer} on the class path and traffic counted, the traffic gauges.
 */
@Configuration(proxyBeanMethods = false)
class ShardTenancyLoadConfiguration {

	@Bean
	@ConditionalOnBooleanProperty("shard-tenancy.load.enabled")
	ShardTenancyBuilderCustomizer shardTenancyLoadTrackingCustomizer(ShardTenancyProperties properties) {
		LoadProperties load = properties.getLoad();
		return (builder) -> builder.loadTracking(true, load.getWindow(), load.getMaxTenants());
	}

	@Bean
	@ConditionalOnMissingBean
	TenantLoads shardTenancyLoads(ShardTenancy tenancy) {
		return tenancy.load();
	}

	@Bean
	@ConditionalOnMissingBean
	Rebalancer shardTenancyRebalancer(ShardTenancy tenancy) {
		return tenancy.rebalancer();
	}

	@Bean
	@ConditionalOnMissingBean
	RebalancerRuns shardTenancyRebalancerRuns(Rebalancer rebalancer, ShardTenancyProperties properties,
			ObjectProvider<MoveSettings> moveSettings) {
		RebalancerProperties rebalancing = properties.getRebalancer();
		SimpleAsyncTaskExecutor executor = new SimpleAsyncTaskExecutor("shard-tenancy-rebalancer-");
		executor.setConcurrencyLimit(1);
		executor.setDaemon(true);
		return new RebalancerRuns(rebalancer,
				rebalancing.toSettings(moveSettings.getIfAvailable(MoveSettings::defaults)), rebalancing.isEnabled(),
				rebalancing.isExecute(), executor);
	}

	@Bean
	@ConditionalOnMissingBean
	ShardTenancyLoadScheduler shardTenancyLoadScheduler(ShardTenancyStart start, ShardTenancyProperties properties,
			ShardTenancyBackgroundThreads threads, RebalancerRuns runs,
			ObjectProvider<TenantLoadMetricsRefresh> metrics) {
		TenantLoadMetricsRefresh refresh = metrics.getIfAvailable();
		return new ShardTenancyLoadScheduler(threads.scheduler(),
				properties.getRebalancer().isEnabled() ? runs : null, properties.getRebalancer().getInterval(),
				refresh, properties.getLoad().getMetricsRefresh());
	}

	/** Refreshes the traffic gauges' series. */
	@FunctionalInterface
	interface TenantLoadMetricsRefresh extends Runnable {

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ MeterBinder.class, TenantLoadMetrics.class })
	@ConditionalOnBooleanProperty("shard-tenancy.load.enabled")
	static class LoadMetricsConfiguration {

		@Bean
		@ConditionalOnMissingBean
		TenantLoadMetrics shardTenancyLoadMetrics(ShardTenancy tenancy, ShardTenancyProperties properties) {
			return new TenantLoadMetrics(tenancy, properties.getLoad().isTenantMetrics());
		}

		@Bean
		TenantLoadMetricsRefresh shardTenancyLoadMetricsRefresh(TenantLoadMetrics metrics) {
			return metrics::refresh;
		}

	}

}
