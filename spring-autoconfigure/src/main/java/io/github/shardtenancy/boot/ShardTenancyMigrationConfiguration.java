package io.github.shardtenancy.boot;

import io.github.shardtenancy.internal.directory.Directory;
import io.github.shardtenancy.internal.topology.Topology;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Liquibase migrations of the directory and every shard, before the router starts. */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(name = { "liquibase.Liquibase",
		"io.github.shardtenancy.liquibase.ShardTenancyMigrations" })
@ConditionalOnProperty(prefix = "shard-tenancy.liquibase", name = "enabled", matchIfMissing = true)
class ShardTenancyMigrationConfiguration {

	@Bean
	@ConditionalOnMissingBean
	ShardTenancyMigrator shardTenancyMigrator(Directory directory, Topology topology,
			ShardTenancyProperties properties) {
		return new ShardTenancyMigrator(directory, topology, properties.getLiquibase().getShardChangelogs());
	}

}
