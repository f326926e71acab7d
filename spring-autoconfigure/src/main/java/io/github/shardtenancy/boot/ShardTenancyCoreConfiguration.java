package io.github.shardtenancy.boot;

import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

import io.github.shardtenancy.HibernateTenantTables;
import io.github.shardtenancy.DualReadSettings;
import io.github.shardtenancy.IdSettings;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.ReferenceTables;
import io.github.shardtenancy.ReplicaSettings;
import io.github.shardtenancy.RouterSettings;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.ShardTenancyBuilder;
import io.github.shardtenancy.ShardTenancyConfigurationException;
import io.github.shardtenancy.ShardTopology;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.TenantMover;
import io.github.shardtenancy.TenantRouter;
import io.github.shardtenancy.TenantTasks;
import io.github.shardtenancy.boot.retry.ShardTenancyRetry;
import io.github.shardtenancy.spi.PlacementPolicy;
import io.github.shardtenancy.spi.ShardPoolFactory;
import io.github.shardtenancy.spi.ShardMigrator;
import jakarta.persistence.EntityManagerFactory;
import org.hibernate.SessionFactory;
import org.hibernate.context.spi.CurrentTenantIdentifierResolver;
import org.hibernate.engine.jdbc.connections.spi.MultiTenantConnectionProvider;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.task.ThreadPoolTaskExecutorBuilder;
import org.springframework.boot.task.ThreadPoolTaskSchedulerBuilder;
import org.springframework.boot.thread.Threading;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.scheduling.TaskScheduler;

/**
 * The one {@link ShardTenancy}, built from {@code shard-tenancy.*} with the core's builder and the application's
 * {@link ShardTenancyBuilderCustomizer}s, its start (after the migrations), and the API beans derived from it: the
 * router, the topology, the mover, the admin, and Hibernate's connection provider and tenant resolver. Every bean
 * backs off to the application's own.
 */
@Configuration(proxyBeanMethods = false)
class ShardTenancyCoreConfiguration {

	private static final java.util.regex.Pattern REFERENCE_TABLE = java.util.regex.Pattern
		.compile("[A-Za-z_][A-Za-z0-9_]{0,62}(\\.[A-Za-z_][A-Za-z0-9_]{0,62})?");

	/**
	 * The tenancy, not started: {@link ShardTenancyStart} starts it once the migrations ran. Its tenant tables are
	 * {@code shard-tenancy.tenant-tables}, or discovered from the JPA metamodel on first need; its shards are prepared
	 * (fence write check, change capture) once every singleton exists. Its pools' HikariCP settings are layered as
	 * {@link ShardPoolSettings} describes.
	 */
	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean
	ShardTenancy shardTenancy(ShardTenancyProperties properties, MoveSettings moveSettings, PlacementPolicy policy,
			ShardMigrator migrator, ShardPoolFactory connector, ObjectProvider<EntityManagerFactory> entityManagerFactory,
			ObjectProvider<ShardTenancyBuilderCustomizer> customizers, Environment environment,
			ShardTenancyConnectionDetails connections, ShardTenancyBackgroundThreads threads) {
		ShardTenancyBuilder builder = ShardTenancy.builder();
		if (connections.getShards().isEmpty()) {
			throw new ShardTenancyConfigurationException("shard-tenancy.shards",
					"No shards are configured: define at least one under shard-tenancy.shards.<shard-id>.url");
		}
		if (connections.getDirectory().jdbcUrl().isBlank()) {
			throw new ShardTenancyConfigurationException("shard-tenancy.directory.url",
					"No directory database is configured: set shard-tenancy.directory.url to its JDBC URL");
		}
		MoveProperties move = properties.getMove();
		if (move.getLease() == null || move.getLease().isNegative()) {
			throw new ShardTenancyConfigurationException("shard-tenancy.move.lease",
					"shard-tenancy.move.lease must not be negative: " + move.getLease());
		}
		IdsProperties ids = properties.getIds();
		if (ids.getEpoch() == null || ids.getCheck() == null) {
			throw new ShardTenancyConfigurationException("shard-tenancy.ids",
					"shard-tenancy.ids.epoch and shard-tenancy.ids.check must not be empty");
		}
		if (properties.getEntities().getCheck() == null) {
			throw new ShardTenancyConfigurationException("shard-tenancy.entities.check",
					"shard-tenancy.entities.check must not be empty: fail, warn or off");
		}
		if (ids.getLease() == null || ids.getLease().isZero() || ids.getLease().isNegative()) {
			throw new ShardTenancyConfigurationException("shard-tenancy.ids.lease",
					"shard-tenancy.ids.lease must be positive: " + ids.getLease());
		}
		if (ids.getMaxClockBackwards() == null || ids.getMaxClockBackwards().isNegative()) {
			throw new ShardTenancyConfigurationException("shard-tenancy.ids.max-clock-backwards",
					"shard-tenancy.ids.max-clock-backwards must not be negative: " + ids.getMaxClockBackwards());
		}
		if (move.getCleanDelay() == null || move.getCleanDelay().isNegative()) {
			throw new ShardTenancyConfigurationException("shard-tenancy.move.clean-delay",
					"shard-tenancy.move.clean-delay must not be negative: " + move.getCleanDelay());
		}
		TenantTableResolver tables = new TenantTableResolver(properties.getTenantTables(), entityManagerFactory);
		for (String table : properties.getReferenceTables()) {
			if (!REFERENCE_TABLE.matcher(table.trim()).matches()) {
				throw new ShardTenancyConfigurationException("shard-tenancy.reference-tables", "Invalid reference "
						+ "table '" + table + "' in shard-tenancy.reference-tables: expected a plain SQL identifier, "
						+ "optionally schema-qualified, e.g. pet_type or ref.pet_type");
			}
		}
		ShardPoolSettings pools = new ShardPoolSettings(properties, environment, connections);
		connections.getShards().forEach((id, database) -> {
			if (database.jdbcUrl().isBlank()) {
				throw new ShardTenancyConfigurationException("shard-tenancy.shards." + id + ".url",
						"Shard '" + id + "' has no JDBC URL: set shard-tenancy.shards." + id + ".url");
			}
		});
		builder.directory(pools.directory());
		builder.shardOwners(new ShardOwnerDataSources(properties, environment, connections));
		connections.getShards().forEach((id, database) -> builder.shard(id,
				properties.getShards().getOrDefault(id, new ShardProperties()).getRegion(), pools.shard(id)));
		properties.getShards().forEach((id, shard) -> {
			for (int i = 0; i < shard.getReplicas().size(); i++) {
				builder.replica(id, pools.replicaName(id, i), pools.replica(id, i));
			}
		});
		ReplicaRoutingProperties replicas = properties.getReplicas();
		try {
			builder.replicaRouting(new ReplicaSettings(replicas.isEnabled(), replicas.getMaxLag(),
					replicas.getSampleInterval()));
		}
		catch (IllegalArgumentException | NullPointerException ex) {
			throw new ShardTenancyConfigurationException("shard-tenancy.replicas", "shard-tenancy.replicas.max-lag ("
					+ replicas.getMaxLag() + ") and shard-tenancy.replicas.sample-interval (" + replicas.getSampleInterval()
					+ ") must be positive durations, e.g. 5s and 500ms");
		}
		try {
			builder.unreachableShards(properties.getUnreachableShardPolicy(),
					properties.getUnreachableShardRetryInterval());
		}
		catch (IllegalArgumentException | NullPointerException ex) {
			throw new ShardTenancyConfigurationException("shard-tenancy.unreachable-shard-retry-interval",
					"shard-tenancy.unreachable-shard-retry-interval (" + properties.getUnreachableShardRetryInterval()
							+ ") must be a positive duration, e.g. 10s");
		}
		builder.router(new RouterSettings(properties.getCache().getMaximumEntries(),
				properties.getCache().getNegativeTtl(), properties.getSync().getInterval(),
				properties.getDirectoryDownPolicy()))
			.tenantTables(tables::resolve)
			.referenceTables(() -> referenceTables(properties.getReferenceTables(), entityManagerFactory))
			.actor(properties.getActor())
			.placementPolicy(policy)
			.shardMigrator(migrator)
			.shardPoolFactory(connector)
			.moveSettings(moveSettings)
			.stopTheWorldCleanDelay(move.getCleanDelay())
			.moveLease(move.getLease())
			.rowLevelSecurity(properties.getFence().isRowLevelSecurity())
			.requireRowLevelSecurity(properties.getFence().isRequireRowLevelSecurity())
			.strictSecurity(properties.getSecurity().isStrict())
			.referenceRole(properties.getSecurity().referenceRoleOrNull())
			.installCapture(move.isInstallCapture())
			.registerShards(properties.getLifecycle().isRegisterShards())
			.prepareShardsOnStart(false)
			.backgroundScheduler(threads.scheduler())
			.ids(new IdSettings(ids.getEpoch(), ids.getLease(), ids.getMaxClockBackwards(),
					ids.getIntegerBlockSize()))
			.idCheck(ids.getCheck())
			.entityCheck(properties.getEntities().getCheck());
		DualReadProperties dualRead = properties.getDualRead();
		builder.dualRead(new DualReadSettings(dualRead.isEnabled(), dualRead.getSampleRate(), dualRead.getTimeout(),
				dualRead.getRechecks(), dualRead.getRecheckDelay()));
		if (threads.moveExecutor() != null) {
			builder.moveExecutor(threads.moveExecutor());
		}
		builder.instances(properties.getInstances().toSettings());
		customizers.orderedStream().forEach((customizer) -> customizer.customize(builder));
		ShardTenancy tenancy = builder.build();
		dualRead.getQueries().forEach(tenancy.dualRead()::register);
		tables.topology(tenancy.topology());
		return tenancy;
	}

	/**
	 * The threads of the tenancy's background work: the application's {@code TaskScheduler} or one built with Boot's
	 * builder, and a move executor built with Boot's builder (see {@link ShardTenancyBackgroundThreads}).
	 */
	@Bean
	ShardTenancyBackgroundThreads shardTenancyBackgroundThreads(ObjectProvider<TaskScheduler> schedulers,
			ObjectProvider<ThreadPoolTaskSchedulerBuilder> schedulerBuilder,
			ObjectProvider<ThreadPoolTaskExecutorBuilder> executorBuilder, Environment environment) {
		return new ShardTenancyBackgroundThreads(schedulers.getIfUnique(), schedulerBuilder.getIfAvailable(),
				executorBuilder.getIfAvailable(), Threading.VIRTUAL.isActive(environment));
	}

	/**
	 * The URLs and credentials of the directory and the shards: {@code shard-tenancy.directory.*} and
	 * {@code shard-tenancy.shards.<id>.*}, overlaid with the databases of development services (Testcontainers'
	 * {@code @ServiceConnection}, Docker Compose). Backs off to the application's own.
	 */
	@Bean
	@ConditionalOnMissingBean(ShardTenancyConnectionDetails.class)
	PropertiesShardTenancyConnectionDetails shardTenancyConnectionDetails(ShardTenancyProperties properties,
			ObjectProvider<ShardTenancyDirectoryConnectionDetails> directories,
			ObjectProvider<ShardConnectionDetails> shards) {
		return new PropertiesShardTenancyConnectionDetails(properties, directories.orderedStream().toList(),
				shards.orderedStream().toList());
	}

	/**
	 * Starts the tenancy after the migrations, which it asks for first: the dependency is explicit so that no
	 * routing can happen on an unmigrated directory or shard. Every bean that routes depends on it.
	 */
	@Bean
	ShardTenancyStart shardTenancyStart(ShardTenancy tenancy, ObjectProvider<ShardTenancyMigrator> migrator,
			ShardTenancyProperties properties) {
		migrator.ifAvailable((m) -> {
		});
		return new ShardTenancyStart(tenancy, properties.getInitialTenants());
	}

	@Bean
	@ConditionalOnMissingBean
	TenantRouter tenantRouter(ShardTenancy tenancy, ShardTenancyStart start) {
		return tenancy.router();
	}

	@Bean
	@ConditionalOnMissingBean
	ShardTopology shardTopology(ShardTenancy tenancy) {
		return tenancy.topology();
	}

	@Bean
	@ConditionalOnMissingBean
	MultiTenantConnectionProvider<String> shardMultiTenantConnectionProvider(ShardTenancy tenancy,
			ShardTenancyStart start) {
		return tenancy.connectionProvider();
	}

	@Bean
	@ConditionalOnMissingBean
	CurrentTenantIdentifierResolver<String> tenantIdentifierResolver(ShardTenancy tenancy) {
		return tenancy.tenantResolver();
	}

	/**
	 * The mover over the tenant tables, running its moves on a bounded executor the tenancy owns and shuts down with
	 * the context.
	 */
	@Bean
	@ConditionalOnMissingBean
	TenantMover tenantMover(ShardTenancy tenancy, ShardTenancyStart start) {
		return tenancy.mover();
	}

	/**
	 * @return {@code shard-tenancy.reference-tables} and the tables of the {@code @ReferenceData} entities of the JPA
	 * metamodel, if there is one
	 */
	static List<String> referenceTables(List<String> configured,
			ObjectProvider<EntityManagerFactory> entityManagerFactory) {
		Set<String> tables = new TreeSet<>();
		configured.forEach((table) -> tables.add(table.trim().toLowerCase(Locale.ROOT)));
		EntityManagerFactory emf = entityManagerFactory.getIfAvailable();
		if (emf != null) {
			tables.addAll(HibernateTenantTables.referenceTables(emf.unwrap(SessionFactory.class)));
		}
		return List.copyOf(tables);
	}

	/**
	 * Reference data: writes applied to every ACTIVE shard, their repair and verification.
	 */
	@Bean
	@ConditionalOnMissingBean
	ReferenceTables referenceTables(ShardTenancy tenancy, ShardTenancyStart start) {
		return tenancy.referenceTables();
	}

	/**
	 * Work across tenants and shards ({@link ShardTenancy#tenantTasks()}), running each tenant in the
	 * {@link ShardTenancyRetry} bean (the {@code shard-tenancy.retry.*} budget) when there is one.
	 */
	@Bean
	@ConditionalOnMissingBean
	TenantTasks tenantTasks(ShardTenancy tenancy, ShardTenancyStart start, ObjectProvider<ShardTenancyRetry> retry) {
		ShardTenancyRetry configured = retry.getIfAvailable();
		return (configured != null) ? tenancy.tenantTasks().withDefaultRetry(configured::call) : tenancy.tenantTasks();
	}

	/**
	 * The admin: creates go through the shard registry and placement (a shard that is not ACTIVE in the registry is
	 * refused); its {@code move} is the stop-the-world move (the {@link MoveSettings} bean with capture off, cleaning
	 * after {@code shard-tenancy.move.clean-delay}); slot moves, overrides and drains move online with the
	 * {@link MoveSettings} bean.
	 */
	@Bean
	@ConditionalOnMissingBean
	TenantAdmin tenantAdmin(ShardTenancy tenancy, ShardTenancyStart start) {
		return tenancy.admin();
	}

}
