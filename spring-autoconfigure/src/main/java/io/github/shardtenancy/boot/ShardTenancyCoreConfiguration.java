package io.github.shardtenancy.boot;

import java.time.Duration;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.ShardTenancyConfigurationException;
import io.github.shardtenancy.RouterSettings;
import io.github.shardtenancy.TenantMover;
import io.github.shardtenancy.internal.directory.Directory;
import io.github.shardtenancy.internal.hibernate.ShardMultiTenantConnectionProvider;
import io.github.shardtenancy.internal.hibernate.TenantIdentifierResolver;
import io.github.shardtenancy.internal.lifecycle.TenantAdmin;
import io.github.shardtenancy.internal.placement.ShardPlacement;
import io.github.shardtenancy.internal.routing.Router;
import io.github.shardtenancy.internal.topology.ShardRegistry;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.spi.PlacementPolicy;
import io.github.shardtenancy.internal.topology.Topology;
import jakarta.persistence.EntityManagerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Topology, directory, router, Hibernate connection provider and resolver, and the admin. */
@Configuration(proxyBeanMethods = false)
class ShardTenancyCoreConfiguration {

	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean
	Topology shardTopology(ShardTenancyProperties properties) {
		if (properties.getShards().isEmpty()) {
			throw new ShardTenancyConfigurationException("shard-tenancy.shards",
					"No shards are configured: define at least one under shard-tenancy.shards.<shard-id>.url");
		}
		Topology topology = new Topology();
		try {
			properties.getShards().forEach((id, shard) -> {
				if (shard.getUrl() == null || shard.getUrl().isBlank()) {
					throw new ShardTenancyConfigurationException("shard-tenancy.shards." + id + ".url",
							"Shard '" + id + "' has no JDBC URL: set shard-tenancy.shards." + id + ".url");
				}
				HikariConfig config = new HikariConfig();
				config.setJdbcUrl(shard.getUrl());
				config.setUsername(shard.getUsername());
				config.setPassword(shard.getPassword());
				config.setMaximumPoolSize(shard.getMaximumPoolSize());
				config.setConnectionTimeout(connectionTimeout(properties, shard).toMillis());
				config.setPoolName("shard-" + id);
				topology.addShard(id, config);
			});
		}
		catch (RuntimeException ex) {
			topology.close();
			throw ex;
		}
		return topology;
	}

	/**
	 * @return {@code shard-tenancy.shards.<id>.connection-timeout} if set, else
	 * {@code shard-tenancy.pool.connection-timeout}
	 */
	static Duration connectionTimeout(ShardTenancyProperties properties, ShardProperties shard) {
		return (shard != null && shard.getConnectionTimeout() != null) ? shard.getConnectionTimeout()
				: properties.getPool().getConnectionTimeout();
	}

	@Bean
	@ConditionalOnMissingBean
	Directory shardTenancyDirectory(ShardTenancyProperties properties) {
		ShardTenancyProperties.Directory directory = properties.getDirectory();
		if (directory.getUrl() == null || directory.getUrl().isBlank()) {
			throw new ShardTenancyConfigurationException("shard-tenancy.directory.url",
					"No directory database is configured: set shard-tenancy.directory.url to its JDBC URL");
		}
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(directory.getUrl());
		config.setUsername(directory.getUsername());
		config.setPassword(directory.getPassword());
		config.setMaximumPoolSize(directory.getMaximumPoolSize());
		config.setPoolName("shard-tenancy-directory");
		return new PooledDirectory(new HikariDataSource(config));
	}

	/**
	 * The router starts (loads the directory) only after the migrations, which it asks for first; the
	 * dependency is explicit so that no routing can happen on an unmigrated directory or shard.
	 */
	@Bean(initMethod = "start", destroyMethod = "close")
	@ConditionalOnMissingBean
	Router tenantRouter(Directory directory, ShardTenancyProperties properties,
			ObjectProvider<ShardTenancyMigrator> migrator) {
		migrator.ifAvailable((m) -> {
		});
		RouterSettings settings = new RouterSettings(properties.getCache().getMaximumEntries(),
				properties.getCache().getNegativeTtl(), properties.getSync().getInterval(),
				properties.getDirectoryDownPolicy());
		return new Router(directory, settings);
	}

	@Bean
	@ConditionalOnMissingBean
	ShardMultiTenantConnectionProvider shardMultiTenantConnectionProvider(Router router,
			Topology topology) {
		return new ShardMultiTenantConnectionProvider(router, topology);
	}

	@Bean
	@ConditionalOnMissingBean
	TenantIdentifierResolver tenantIdentifierResolver() {
		return new TenantIdentifierResolver();
	}

	@Bean
	@ConditionalOnMissingBean
	TenantTableResolver shardTenancyTenantTables(ShardTenancyProperties properties, Topology topology,
			ObjectProvider<EntityManagerFactory> entityManagerFactory) {
		return new TenantTableResolver(properties.getTenantTables(), topology, entityManagerFactory);
	}

	/**
	 * The admin; with a shard registry (the default) its {@code create(tenant, shard)} goes through the registry and
	 * placement like {@code TenantLifecycle.create}: a shard that is not ACTIVE in the registry is refused. Its
	 * {@code move} is the stop-the-world move: the {@link MoveSettings} bean with capture off, cleaning after
	 * {@code shard-tenancy.move.clean-delay}.
	 */
	@Bean
	@ConditionalOnMissingBean
	TenantAdmin tenantAdmin(Directory directory, Router router, Topology topology, TenantMover mover,
			MoveSettings moveSettings, ShardTenancyProperties properties, ObjectProvider<ShardRegistry> registry,
			ObjectProvider<PlacementPolicy> policy) {
		PlacementPolicy placementPolicy = policy.getIfUnique();
		ShardPlacement placement = (registry.getIfUnique() != null && placementPolicy != null)
				? new ShardPlacement(placementPolicy) : null;
		MoveSettings stopTheWorld = moveSettings.withCapture(false)
			.withCleanDelay(properties.getMove().getCleanDelay());
		return new TenantAdmin(directory, router, topology, mover, stopTheWorld, properties.getActor(), placement);
	}

	@Bean
	@ConditionalOnMissingBean
	FenceWriteCheckInstaller shardTenancyFenceWriteCheckInstaller(Topology topology,
			TenantTableResolver tables, ShardTenancyProperties properties) {
		return new FenceWriteCheckInstaller(topology, tables, properties.getFence().isRowLevelSecurity(),
				properties.getFence().isRequireRowLevelSecurity());
	}

	/** Makes the pool-owning directory closeable by the container. */
	static final class PooledDirectory extends Directory implements AutoCloseable {

		PooledDirectory(HikariDataSource pool) {
			super(pool);
		}

		@Override
		public void close() {
			((HikariDataSource) dataSource()).close();
		}

	}

}
