package io.github.shardtenancy.boot;

import javax.sql.DataSource;

import io.github.shardtenancy.internal.hibernate.ShardMultiTenantConnectionProvider;
import io.github.shardtenancy.internal.hibernate.TenantRoutingDataSource;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The application's {@code DataSource}, routed by tenant, unless it defines its own. */
@Configuration(proxyBeanMethods = false)
class ShardTenancyJdbcConfiguration {

	@Bean
	@ConditionalOnMissingBean(DataSource.class)
	TenantRoutingDataSource dataSource(ShardMultiTenantConnectionProvider provider) {
		return new TenantRoutingDataSource(provider);
	}

}
