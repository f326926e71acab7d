package io.github.shardtenancy.boot;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.spi.LeastLoadedPlacement;
import io.github.shardtenancy.spi.PlacementPolicy;
import io.github.shardtenancy.spi.RegionAwarePlacement;
import io.github.shardtenancy.spi.ShardPoolFactory;
import io.github.shardtenancy.spi.ShardMigrator;
import io.github.shardtenancy.spi.SlotPlacement;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * Tenant lifecycle: the placement policy, how shards added at runtime are migrated, how shards registered by other
 * instances are connected to (all handed to the {@link ShardTenancy} builder), and the background registry sync and
 * scheduled reconciliation.
 */
@Configuration(proxyBeanMethods = false)
class ShardTenancyLifecycleConfiguration {

	@Bean
	@ConditionalOnMissingBean
	PlacementPolicy shardTenancyPlacementPolicy(ShardTenancyProperties properties) {
		return switch (properties.getLifecycle().getPlacement()) {
			case LEAST_LOADED -> new LeastLoadedPlacement();
			case REGION -> new RegionAwarePlacement(properties.getLifecycle().getDefaultRegion());
			case SLOTS -> new SlotPlacement();
		};
	}

	/**
	 * Migrates a shard added at runtime with the same changelogs as the configured shards (when the Liquibase
	 * migrations are on); the tenancy then installs the fence write check and the change capture on it.
	 */
	@Bean
	@ConditionalOnMissingBean
	ShardMigrator shardTenancyShardMigrator(ObjectProvider<ShardTenancyMigrator> migrator) {
		return (shardId, dataSource, dialect) -> migrator.ifAvailable((m) -> m.migrateShard(shardId, dataSource));
	}

	/**
	 * Pool settings of shards registered by other instances: {@code shard-tenancy.pool.*}, the shard's own
	 * {@code shard-tenancy.shards.<id>.*} when this instance configures it too, then the registry's URL and user name
	 * (see {@link ShardPoolSettings}).
	 */
	@Bean
	@ConditionalOnMissingBean
	ShardPoolFactory shardTenancyShardPoolFactory(ShardTenancyProperties properties, Environment environment) {
		ShardPoolSettings pools = new ShardPoolSettings(properties, environment);
		return shard -> {
			HikariConfig config = pools.shard(shard.shardId());
			config.setJdbcUrl(shard.jdbcUrl());
			config.setUsername(shard.username());
			return new HikariDataSource(config);
		};
	}

	@Bean
	@ConditionalOnMissingBean
	ShardTenancyLifecycleScheduler shardTenancyLifecycleScheduler(ShardTenancy tenancy, ShardTenancyStart start,
			ShardTenancyProperties properties, ShardTenancyBackgroundThreads threads) {
		return new ShardTenancyLifecycleScheduler(tenancy, properties, threads.scheduler());
	}

}
