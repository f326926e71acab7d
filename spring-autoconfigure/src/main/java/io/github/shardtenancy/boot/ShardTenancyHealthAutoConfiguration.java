package io.github.shardtenancy.boot;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroupsPostProcessor;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.env.Environment;

/**
 * Puts the {@code shardTenancy} health indicator (defined by {@link ShardTenancyAutoConfiguration}) into Boot's
 * {@code readiness} group. A separate auto-configuration because it must come after Boot's availability probes
 * auto-configuration, which creates that group; the group post-processors run in that order.
 */
@AutoConfiguration(afterName = "org.springframework.boot.health.autoconfigure.actuate.endpoint.AvailabilityProbesAutoConfiguration")
@ConditionalOnClass({ HealthEndpointGroupsPostProcessor.class, ConditionalOnEnabledHealthIndicator.class })
@ConditionalOnProperty(prefix = "shard-tenancy", name = "enabled", matchIfMissing = true)
@Conditional(OnDataSourceAutoConfigurationIncludedCondition.class)
public final class ShardTenancyHealthAutoConfiguration {

	@Bean
	@ConditionalOnEnabledHealthIndicator("shardtenancy")
	static ReadinessGroupMembership shardTenancyReadinessGroupMembership(Environment environment) {
		return new ReadinessGroupMembership(environment);
	}

}
