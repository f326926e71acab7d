package io.github.shardtenancy.boot;

import io.github.shardtenancy.micrometer.DirectoryWatcherMetrics;
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
 * Micrometer metrics: the {@link ShardTenancyMetrics} binder (router, fence rejections, retries, moves) and, with a
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
