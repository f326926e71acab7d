package io.github.shardtenancy.boot;

import javax.sql.DataSource;

import io.github.shardtenancy.ShardTenancy;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * The application's {@code DataSource}, routed by tenant, unless it defines its own; refuses the Spring Boot settings
 * the routing {@code DataSource} would silently defeat ({@link IgnoredSpringSettingsCheck}).
 */
@Configuration(proxyBeanMethods = false)
class ShardTenancyJdbcConfiguration {

	@Bean
	@ConditionalOnMissingBean(DataSource.class)
	DataSource dataSource(ShardTenancy tenancy, ShardTenancyStart start, Environment environment) {
		IgnoredSpringSettingsCheck.check(environment);
		return tenancy.dataSource();
	}

}
