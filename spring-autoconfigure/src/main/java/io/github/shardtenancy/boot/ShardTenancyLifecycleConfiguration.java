package io.github.shardtenancy.boot;

import java.sql.Connection;
import java.sql.SQLException;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.ShardTenancyConfigurationException;
import io.github.shardtenancy.TenantMover;
import io.github.shardtenancy.TenantTable;
import io.github.shardtenancy.internal.directory.Directory;
import io.github.shardtenancy.internal.lifecycle.DirectoryHistory;
import io.github.shardtenancy.internal.lifecycle.TenantLifecycle;
import io.github.shardtenancy.spi.LeastLoadedPlacement;
import io.github.shardtenancy.spi.RegionAwarePlacement;
import io.github.shardtenancy.internal.placement.ShardPlacement;
import io.github.shardtenancy.internal.placement.SlotMap;
import io.github.shardtenancy.spi.SlotPlacement;
import io.github.shardtenancy.internal.reconcile.Reconciler;
import io.github.shardtenancy.internal.routing.Router;
import io.github.shardtenancy.internal.topology.ShardRegistry;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.spi.PlacementPolicy;
import io.github.shardtenancy.spi.ShardConnector;
import io.github.shardtenancy.spi.ShardMigrator;
import io.github.shardtenancy.internal.topology.Topology;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Tenant lifecycle: placement policy, shard registry (the configured shards recorded at start-up, shards added at
 * runtime migrated first), slot map, {@link TenantLifecycle}, directory history, reconciliation and the background
 * registry sync and scheduled reconciliation.
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
	 * migrations are on), then installs the fence write check on every tenant table, and the online mover's change
	 * capture when it is installed on the configured shards ({@code shard-tenancy.move.install-capture}).
	 */
	@Bean
	@ConditionalOnMissingBean
	ShardMigrator shardTenancyShardMigrator(ObjectProvider<ShardTenancyMigrator> migrator,
			TenantTableResolver tables, ShardTenancyProperties properties,
			ObjectProvider<ShardTenancyMoveConfiguration.ChangeCaptureInstaller> captureInstaller) {
		return (shardId, dataSource, dialect) -> {
			Topology.Shard shard = new Topology.Shard(shardId, dataSource, dialect, false);
			migrator.ifAvailable(m -> m.migrateShard(shard));
			captureInstaller.ifAvailable(installer -> installer.install(shard));
			for (TenantTable table : tables.resolve()) {
				try (Connection c = shard.dataSource().getConnection()) {
					c.setAutoCommit(true);
					shard.dialect().installWriteCheck(c, table.table(), table.tenantColumn(),
							properties.getFence().isRowLevelSecurity());
				}
				catch (SQLException ex) {
					throw new ShardTenancyConfigurationException("shard-tenancy.tenant-tables",
							"Cannot install the fence write check on table " + table.table() + " of shard '" + shard.id()
									+ "': " + ex.getMessage());
				}
			}
		};
	}

	/**
	 * Pool settings of shards registered by other instances: the registry's URL and user name, and the connection
	 * timeout of {@code shard-tenancy.shards.<id>.connection-timeout} (when this instance configures the shard too)
	 * or {@code shard-tenancy.pool.connection-timeout}.
	 */
	@Bean
	@ConditionalOnMissingBean
	ShardConnector shardTenancyShardConnector(ShardTenancyProperties properties) {
		return shard -> {
			HikariConfig config = new HikariConfig();
			config.setJdbcUrl(shard.jdbcUrl());
			config.setUsername(shard.username());
			config.setPoolName("shard-" + shard.shardId());
			config.setConnectionTimeout(ShardTenancyCoreConfiguration
				.connectionTimeout(properties, properties.getShards().get(shard.shardId())).toMillis());
			return new HikariDataSource(config);
		};
	}

	@Bean
	@ConditionalOnMissingBean
	ShardRegistry shardRegistry(Directory directory, Topology topology, ShardMigrator migrator,
			ShardConnector connector, ShardTenancyProperties properties, Router router) {
		// the router bean depends on the migrations: the directory schema exists before the registry is used
		return new ShardRegistry(directory, topology, migrator, connector, properties.getActor());
	}

	@Bean
	@ConditionalOnMissingBean
	SlotMap shardTenancySlotMap(Directory directory, ShardRegistry registry) {
		return new SlotMap(directory).load();
	}

	/**
	 * The lifecycle; its moves (slot moves, overrides, drains) run on the calling thread with the {@link TenantMover}
	 * bean and the {@link MoveSettings} bean (online by default), returning once the directory names the target; the
	 * mover cleans the source after the clean delay.
	 */
	@Bean
	@ConditionalOnMissingBean
	TenantLifecycle tenantLifecycle(Directory directory, Router router, Topology topology,
			ShardRegistry registry, PlacementPolicy policy, SlotMap slots, TenantMover mover, MoveSettings moveSettings,
			TenantTableResolver tables, ShardTenancyProperties properties) {
		return new TenantLifecycle(directory, router, topology, registry, new ShardPlacement(policy), slots, mover,
				moveSettings, tables.resolve(), properties.getActor());
	}

	@Bean
	@ConditionalOnMissingBean
	DirectoryHistory shardTenancyDirectoryHistory(Directory directory) {
		return new DirectoryHistory(directory);
	}

	@Bean
	@ConditionalOnMissingBean
	Reconciler shardTenancyReconciler(Directory directory, Topology topology, TenantTableResolver tables) {
		return new Reconciler(directory, topology, tables.resolve());
	}

	@Bean
	@ConditionalOnMissingBean
	ShardTenancyLifecycleScheduler shardTenancyLifecycleScheduler(ShardRegistry registry, Reconciler reconciler,
			SlotMap slots, Topology topology, ShardTenancyProperties properties) {
		return new ShardTenancyLifecycleScheduler(registry, reconciler, slots, topology, properties);
	}

}
