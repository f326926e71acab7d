package io.github.shardtenancy.boot;

import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.spi.TenantSeeder;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.ResourceLoader;
import org.springframework.core.io.support.ResourcePatternUtils;

/**
 * Seeding of new tenants: the scripts of {@code shard-tenancy.seed.locations} first, then every {@link TenantSeeder}
 * bean of the application, in {@link org.springframework.core.Ordered order}, all in one transaction on the new
 * tenant's shard (see {@link io.github.shardtenancy.TenantAdmin#seed(String)}).
 */
@Configuration(proxyBeanMethods = false)
class ShardTenancySeedConfiguration {

	@Bean
	@ConditionalOnMissingBean(name = "shardTenancySeedCustomizer")
	ShardTenancyBuilderCustomizer shardTenancySeedCustomizer(ShardTenancyProperties properties,
			ResourceLoader resourceLoader, ObjectProvider<TenantSeeder> seeders,
			ObjectProvider<ShardTenancy> shardTenancy) {
		SqlScriptTenantSeeder scripts = SqlScriptTenantSeeder.of(properties.getSeed(),
				ResourcePatternUtils.getResourcePatternResolver(resourceLoader), () -> shardTenancy.getObject().nextId(),
				(table) -> (table != null) ? shardTenancy.getObject().nextIntId(table)
						: shardTenancy.getObject().nextIntId());
		return (builder) -> {
			if (scripts != null) {
				builder.tenantSeeder(scripts);
			}
			seeders.orderedStream().forEach(builder::tenantSeeder);
		};
	}

}
