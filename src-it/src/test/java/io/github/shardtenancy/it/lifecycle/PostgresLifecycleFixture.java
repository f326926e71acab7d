package io.github.shardtenancy.it.lifecycle;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.RouterSettings;
import io.github.shardtenancy.TenantMover;
import io.github.shardtenancy.internal.directory.Directory;
import io.github.shardtenancy.internal.hibernate.ShardMultiTenantConnectionProvider;
import io.github.shardtenancy.internal.lifecycle.TenantLifecycle;
import io.github.shardtenancy.internal.placement.ShardPlacement;
import io.github.shardtenancy.internal.placement.SlotMap;
import io.github.shardtenancy.internal.routing.Router;
import io.github.shardtenancy.internal.topology.ShardRegistry;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import io.github.shardtenancy.retry.FenceRejection;
import io.github.shardtenancy.spi.PlacementPolicy;
import io.github.shardtenancy.spi.ShardPoolFactory;
import io.github.shardtenancy.spi.ShardMigrator;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.internal.move.Mover;
import io.github.shardtenancy.internal.topology.Topology;
import io.github.shardtenancy.testing.pg.PostgresCluster;
import io.github.shardtenancy.testing.pg.PostgresServer;

/**
 * A lifecycle deployment of its own on the shared PostgreSQL servers: fresh databases (a directory on the directory
 * server, one shard database on each shard server), so that tenant counts and the slot configuration (fixed for the
 * life of a directory) are not shared with other tests. Wired by hand like the Boot module: registry (whose migrator
 * runs the fence changelog, the {@code pg_note} changelog and the fence write check), router, connection provider,
 * basic mover and {@link TenantLifecycle}. Close it to drop the databases.
 */
final class PostgresLifecycleFixture implements AutoCloseable {

	final PostgresCluster cluster;

	final String prefix = "lc_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);

	final HikariDataSource directoryPool;

	final Directory directory;

	final Topology topology = new Topology();

	final ShardRegistry registry;

	final Router router;

	final ShardMultiTenantConnectionProvider provider;

	final Mover mover;

	/** The mover's executor, shut down on close. */
	final java.util.concurrent.ExecutorService moveExecutor = java.util.concurrent.Executors.newFixedThreadPool(2);

	final SlotMap slots;

	final TenantLifecycle lifecycle;

	private final Map<PostgresServer, List<String>> databases = new LinkedHashMap<>();

	private final List<HikariDataSource> pools = new ArrayList<>();

	static final ShardMigrator MIGRATOR = (shardId, dataSource, dialect) -> {
		ShardTenancyMigrations.migrateShard(dataSource, shardId, List.of(PostgresCluster.NOTES_CHANGELOG));
		try (Connection c = dataSource.getConnection()) {
			dialect.installWriteCheck(c, PostgresCluster.NOTES.table(), PostgresCluster.NOTES.tenantColumn());
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	};

	PostgresLifecycleFixture(PostgresCluster cluster, Map<String, String> regions, PlacementPolicy policy) {
		this.cluster = cluster;
		this.directoryPool = pool(createDatabase(cluster.directory(), "dir"), "directory");
		ShardTenancyMigrations.migrateDirectory(this.directoryPool);
		this.directory = new Directory(this.directoryPool);
		this.registry = new ShardRegistry(this.directory, this.topology, MIGRATOR, connector(), "ops@pg");
		for (String shardId : PostgresCluster.SHARD_IDS) {
			HikariConfig config = createDatabase(cluster.shard(shardId), shardId.replace("-", ""));
			this.registry.register(shardId, regions.get(shardId), config);
		}
		this.router = new Router(this.directory, RouterSettings.defaults());
		this.router.loadSnapshot();
		this.provider = new ShardMultiTenantConnectionProvider(this.router, this.topology);
		this.mover = new Mover(this.directory, this.router, this.topology, List.of(PostgresCluster.NOTES),
				"mover@pg", this.moveExecutor);
		this.slots = new SlotMap(this.directory).load();
		this.lifecycle = lifecycle(this.directory, this.router, policy);
	}

	TenantLifecycle lifecycle(Directory directory, Router router, PlacementPolicy policy) {
		return new TenantLifecycle(directory, router, this.topology, this.registry, new ShardPlacement(policy),
				this.slots, this.mover, MoveSettings.stopTheWorld(), List.of(PostgresCluster.NOTES), "ops@pg");
	}

	/** Pool settings (with the server's credentials) for a new, empty database on a shard server. */
	HikariConfig newShardDatabase(String serverShardId, String name) {
		return createDatabase(this.cluster.shard(serverShardId), name);
	}

	/** @return another pool on the directory database (another application instance) */
	HikariDataSource newDirectoryPool(String name) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(this.directoryPool.getJdbcUrl());
		config.setUsername(this.directoryPool.getUsername());
		config.setPassword(this.directoryPool.getPassword());
		config.setMaximumPoolSize(2);
		return pool(config, name);
	}

	private ShardPoolFactory connector() {
		return shard -> {
			HikariConfig config = new HikariConfig();
			config.setJdbcUrl(shard.jdbcUrl());
			config.setUsername(shard.username());
			config.setPassword(this.cluster.directory().password());
			return pool(config, "shard-" + shard.shardId());
		};
	}

	private HikariConfig createDatabase(PostgresServer server, String suffix) {
		String database = this.prefix + "_" + suffix;
		try (Connection c = java.sql.DriverManager.getConnection(server.jdbcUrl(), server.user(), server.password());
				Statement s = c.createStatement()) {
			s.execute("CREATE DATABASE " + database);
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Cannot create database " + database + " on " + server, ex);
		}
		this.databases.computeIfAbsent(server, k -> new ArrayList<>()).add(database);
		String url = server.jdbcUrl();
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(url.substring(0, url.lastIndexOf('/') + 1) + database);
		config.setUsername(server.user());
		config.setPassword(server.password());
		config.setMaximumPoolSize(3);
		config.setMinimumIdle(0);
		config.setConnectionTimeout(5000);
		return config;
	}

	private HikariDataSource pool(HikariConfig config, String name) {
		config.setPoolName(this.prefix + "-" + name);
		HikariDataSource pool = new HikariDataSource(config);
		this.pools.add(pool);
		return pool;
	}

	/** Inserts a note as the tenant through a connection provider, in one transaction, retrying fence rejections. */
	static void write(ShardMultiTenantConnectionProvider provider, Router router, String tenant) {
		withRetry(router, 5, () -> {
			try (TenantContext.Scope scope = TenantContext.bind(tenant)) {
				Connection c = provider.getConnection(tenant);
				try {
					c.setAutoCommit(false);
					try (PreparedStatement ps = c
						.prepareStatement("INSERT INTO pg_note (id, tenant_id, text) VALUES (?, ?, 'note')")) {
						ps.setObject(1, UUID.randomUUID());
						ps.setString(2, tenant);
						ps.executeUpdate();
					}
					c.commit();
				}
				catch (SQLException | RuntimeException ex) {
					c.rollback();
					throw ex;
				}
				finally {
					c.setAutoCommit(true);
					provider.releaseConnection(tenant, c);
				}
				return null;
			}
			catch (SQLException ex) {
				throw new IllegalStateException(ex);
			}
		});
	}

	void write(String tenant) {
		write(this.provider, this.router, tenant);
	}

	static <T> T withRetry(Router router, int attempts, Supplier<T> work) {
		for (int attempt = 1;; attempt++) {
			try {
				return work.get();
			}
			catch (RuntimeException ex) {
				FenceRejection rejection = FenceRejection.find(ex).orElse(null);
				if (rejection == null || attempt >= attempts) {
					throw ex;
				}
				router.invalidate(rejection.tenantId());
			}
		}
	}

	/** Counts a tenant's notes on a shard, on a plain connection (no fence involved). */
	long rows(String shardId, String tenant) {
		try (Connection c = this.topology.shard(shardId).dataSource().getConnection();
				PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM pg_note WHERE tenant_id = ?")) {
			ps.setString(1, tenant);
			try (ResultSet rs = ps.executeQuery()) {
				rs.next();
				return rs.getLong(1);
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	@Override
	public void close() {
		this.moveExecutor.shutdownNow();
		this.router.close();
		this.topology.close();
		this.pools.forEach(HikariDataSource::close);
		this.databases.forEach((server, names) -> {
			try (Connection c = java.sql.DriverManager.getConnection(server.jdbcUrl(), server.user(),
					server.password()); Statement s = c.createStatement()) {
				for (String name : names) {
					s.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
				}
			}
			catch (SQLException ex) {
				// the server is shared and stopped at the end of the run anyway
			}
		});
	}

}
