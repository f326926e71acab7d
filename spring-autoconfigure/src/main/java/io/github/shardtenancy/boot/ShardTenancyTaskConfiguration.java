package io.github.shardtenancy.boot;

import io.github.shardtenancy.boot.task.TenantTaskDecorator;
import io.github.shardtenancy.micrometer.context.TenantThreadLocalAccessor;
import io.micrometer.context.ContextSnapshotFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The tenant across threads: a {@link TenantTaskDecorator}, which Boot applies to its auto-configured task executor
 * ({@code @Async}, {@code applicationTaskExecutor}) and task scheduler. Needs {@code hibernate-shard-tenancy-micrometer}
 * (and so Micrometer's context-propagation) on the class path.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass({ ContextSnapshotFactory.class, TenantThreadLocalAccessor.class })
class ShardTenancyTaskConfiguration {

	@Bean
	@ConditionalOnMissingBean
	TenantTaskDecorator tenantTaskDecorator() {
		return TenantTaskDecorator.propagating();
	}

}
