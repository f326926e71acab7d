package io.github.shardtenancy.internal.lifecycle;

import io.github.shardtenancy.retry.FenceRejection;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.TenantTable;
import io.github.shardtenancy.TenantMover;
import io.github.shardtenancy.internal.directory.Directory;
import io.github.shardtenancy.internal.move.Mover;
import io.github.shardtenancy.spi.LeastLoadedPlacement;
import io.github.shardtenancy.internal.placement.ShardPlacement;
import io.github.shardtenancy.internal.placement.SlotMap;
import io.github.shardtenancy.internal.routing.Router;
import io.github.shardtenancy.internal.topology.ShardRegistry;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.spi.PlacementPolicy;
import io.github.shardtenancy.spi.ShardPoolFactory;
import io.github.shardtenancy.spi.ShardMigrator;
import io.github.shardtenancy.testing.Note;
import io.github.shardtenancy.testing.ShardTenancyFixture;
import io.github.shardtenancy.testing.Transactions;
import io.github.shardtenancy.internal.topology.Topology;
import org.hibernate.SessionFactory;

/**
 * The core fixture (H2 directory and shards, migrated) plus what the lifecycle needs: a shard registry whose migrator
 * runs the real Liquibase changelogs and installs the fence write checks, the fixture's shards registered with the
 * given regions, a basic mover and a {@link TenantLifecycle}.
 */
final class LifecycleFixture implements AutoCloseable {

	static final ShardMigrator MIGRATOR = (shardId, dataSource, dialect) -> {
		ShardTenancyMigrations.migrateShard(dataSource, shardId, List.of(ShardTenancyFixture.CHANGELOG));
		try (Connection c = dataSource.getConnection()) {
			for (TenantTable table : ShardTenancyFixture.TABLES) {
				dialect.installWriteCheck(c, table.table(), table.tenantColumn());
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	};

	final ShardTenancyFixture core;

	final ShardRegistry registry;

	final Mover mover;

	final SlotMap slots;

	final TenantLifecycle lifecycle;

	final String name = UUID.randomUUID().toString().substring(0, 8);

	private final List<String> runtimeShardUrls = new java.util.ArrayList<>();

	LifecycleFixture(String name, int shards, Map<String, String> regions, PlacementPolicy policy) {
		this.core = ShardTenancyFixture.create(name, shards);
		this.registry = new ShardRegistry(this.core.directory(), this.core.topology(), MIGRATOR,
				ShardPoolFactory.urlAndUser(), "test@lifecycle");
		for (String shardId : this.core.topology().shardIds()) {
			this.registry.register(shardId, regions.get(shardId), null, null);
		}
		this.mover = this.core.mover(this.core.router(), ShardTenancyFixture.TABLES);
		this.slots = new SlotMap(this.core.directory()).load();
		this.lifecycle = lifecycle(this.core.directory(), this.core.router(), this.core.topology(), policy);
	}

	TenantLifecycle lifecycle(Directory directory, Router router, Topology topology,
			PlacementPolicy policy) {
		return new TenantLifecycle(directory, router, topology, this.registry, new ShardPlacement(policy),
				this.slots, this.mover, MoveSettings.stopTheWorld(), ShardTenancyFixture.TABLES, "test@lifecycle");
	}

	static LifecycleFixture create(String name, int shards) {
		return new LifecycleFixture(name, shards, Map.of(), new LeastLoadedPlacement());
	}

	/** @return pool settings for a new, empty H2 shard database */
	HikariConfig newShardConfig(String shardId) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl("jdbc:h2:mem:lifecycle-" + this.name + "-" + shardId + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000");
		config.setMaximumPoolSize(4);
		this.runtimeShardUrls.add(config.getJdbcUrl());
		return config;
	}

	/** @return a second pool on the directory database, as another application instance has */
	HikariDataSource newDirectoryPool() {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(((HikariDataSource) this.core.directoryDataSource()).getJdbcUrl());
		config.setMaximumPoolSize(2);
		return new HikariDataSource(config);
	}

	SessionFactory sessionFactory() {
		return this.core.sessionFactory();
	}

	/** Inserts a note for the tenant through Hibernate and the fixture's connection provider, in one transaction. */
	void insertNote(String tenantId, String body) {
		insertNote(sessionFactory(), tenantId, body);
	}

	static void insertNote(SessionFactory sessionFactory, String tenantId, String body) {
		Transactions.inTransaction(sessionFactory, tenantId, session -> {
			session.persist(new Note(body));
			return null;
		});
	}

	/**
	 * Runs work, retrying after a fence rejection with the rejected tenant's entry invalidated (what the Boot retry
	 * does), at most {@code attempts} times.
	 */
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

	long rows(String shardId, String tenantId) {
		return this.core.rows(shardId, "note", tenantId);
	}

	@Override
	public void close() {
		this.core.close();
		for (String url : this.runtimeShardUrls) {
			try (Connection c = java.sql.DriverManager.getConnection(url); java.sql.Statement s = c.createStatement()) {
				s.execute("SHUTDOWN");
			}
			catch (SQLException ex) {
				// already gone
			}
		}
	}

}
