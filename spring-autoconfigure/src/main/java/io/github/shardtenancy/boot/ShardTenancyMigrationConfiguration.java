package io.github.shardtenancy.boot;

import io.github.shardtenancy.ShardTenancy;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Liquibase migrations of the directory and every shard, before the router starts, after the check of the Liquibase
 * version ({@link LiquibaseVersionCheck}).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(name = { "liquibase.Liquibase",
		"io.github.shardtenancy.liquibase.ShardTenancyMigrations" })
@ConditionalOnProperty(prefix = "shard-tenancy.liquibase", name = "enabled", matchIfMissing = true)
class ShardTenancyMigrationConfiguration {

	@Bean
	@ConditionalOnMissingBean
	ShardTenancyMigrator shardTenancyMigrator(ShardTenancy tenancy, ShardTenancyProperties properties) {
		LiquibaseVersionCheck.checkClassPath();
		return new ShardTenancyMigrator(tenancy.directoryDataSource(), tenancy.topology(),
				properties.getLiquibase().getShardChangelogs());
	}

}
