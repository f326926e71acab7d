package io.github.shardtenancy.boot;

import io.github.shardtenancy.micrometer.DirectoryWatcherMetrics;
import io.github.shardtenancy.micrometer.InstanceSkewMetrics;
import io.github.shardtenancy.micrometer.ReplicaLagMetrics;
import io.github.shardtenancy.micrometer.ShardPoolMetrics;
import io.github.shardtenancy.micrometer.ShardTenancyMetrics;
import io.github.shardtenancy.postgresql.DirectoryWatcher;
import io.github.shardtenancy.ShardTenancy;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Micrometer metrics: the {@link ShardTenancyMetrics} binder (router, fence rejections, retries, moves), the
 * {@link ShardPoolMetrics} binder (HikariCP's meters per shard pool, tagged {@code shard}), the
 * {@link InstanceSkewMetrics} binder (version skew across instances) and, with a
 * PostgreSQL directory watcher, the {@link DirectoryWatcherMetrics} binder. Boot's metrics auto-configuration
 * ({@code spring-boot-micrometer-metrics}) binds every {@link MeterBinder} bean to the application's registry. Needs
 * {@code hibernate-shard-tenancy-micrometer} on the class path.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass({ MeterBinder.class, ShardTenancyMetrics.class })
class ShardTenancyMetricsConfiguration {

	@Bean
	@ConditionalOnMissingBean
	ShardTenancyMetrics shardTenancyMetrics(ShardTenancy tenancy) {
		ShardTenancyMetrics metrics = new ShardTenancyMetrics(tenancy.router());
		tenancy.addObserver(metrics);
		return metrics;
	}

	/**
	 * HikariCP's own meters ({@code hikaricp.connections*}, tagged {@code pool}) for every shard pool, with a
	 * {@code shard} tag: the pools of the configured shards, of shards registered at runtime and of shards other
	 * instances registered; a pool's meters go when the pool closes (its shard retired, or the context closed).
	 */
	@Bean
	@ConditionalOnMissingBean
	ShardPoolMetrics shardTenancyShardPoolMetrics() {
		return new ShardPoolMetrics();
	}

	/**
	 * The version skew across instances ({@code shardtenancy.instances.*}), read from this instance's latest
	 * heartbeat; {@code NaN} with the heartbeat disabled.
	 */
	@Bean
	@ConditionalOnMissingBean
	InstanceSkewMetrics shardTenancyInstanceSkewMetrics(ShardTenancy tenancy) {
		return new InstanceSkewMetrics(tenancy.instances());
	}

	/** The lag gauge of every read replica ({@code shardtenancy.replica.lag}, tagged {@code shard} and {@code replica}). */
	@Bean
	@ConditionalOnMissingBean
	ReplicaLagMetrics shardTenancyReplicaLagMetrics(ShardTenancy tenancy) {
		return new ReplicaLagMetrics(tenancy.topology());
	}

	@Bean
	ShardTenancyBuilderCustomizer shardTenancyShardPoolMetricsCustomizer(ShardPoolMetrics shardPoolMetrics) {
		return (builder) -> builder.shardPoolListener(shardPoolMetrics);
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ DirectoryWatcher.class, DirectoryWatcherMetrics.class })
	static class WatcherMetricsConfiguration {

		@Bean
		@ConditionalOnMissingBean
		@ConditionalOnBean(DirectoryWatcher.class)
		DirectoryWatcherMetrics shardTenancyDirectoryWatcherMetrics(DirectoryWatcher watcher) {
			return new DirectoryWatcherMetrics(watcher);
		}

	}

}
