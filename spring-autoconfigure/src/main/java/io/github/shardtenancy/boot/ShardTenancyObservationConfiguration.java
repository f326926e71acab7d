package io.github.shardtenancy.boot;

import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.micrometer.observation.ShardTenancyObservations;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Micrometer observations of retried work, its attempts and move steps ({@link ShardTenancyObservations}), added to
 * the tenancy as an observer when the application has an {@link ObservationRegistry} (Boot's
 * {@code ObservationAutoConfiguration}, from {@code spring-boot-micrometer-observation}, provides one). The registry is
 * looked up when the bean is created, not by a bean condition, so that the order of the auto-configurations does not
 * matter. Needs {@code hibernate-shard-tenancy-micrometer} on the class path. Observations are switched off like any
 * other, with {@code management.observations.enable.shardtenancy=false}.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass({ ObservationRegistry.class, ShardTenancyObservations.class })
class ShardTenancyObservationConfiguration {

	@Bean
	@ConditionalOnMissingBean
	ShardTenancyObservations shardTenancyObservations(ShardTenancy tenancy, ShardTenancyProperties properties,
			ObjectProvider<ObservationRegistry> registry) {
		ObservationRegistry observationRegistry = registry.getIfUnique(() -> ObservationRegistry.NOOP);
		ShardTenancyObservations observations = new ShardTenancyObservations(observationRegistry,
				properties.getObservations().isTenantLowCardinality());
		if (observationRegistry != ObservationRegistry.NOOP) {
			tenancy.addObserver(observations);
		}
		return observations;
	}

}
