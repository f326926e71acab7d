package io.github.shardtenancy;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.spi.FenceDialect;
import io.github.shardtenancy.spi.MoveHook;
import io.github.shardtenancy.spi.PlacementPolicy;
import io.github.shardtenancy.spi.RouteFeed;
import io.github.shardtenancy.spi.ShardConnector;
import io.github.shardtenancy.spi.ShardMigrator;
import io.github.shardtenancy.spi.ShardTenancyObserver;
import io.github.shardtenancy.spi.ShardTenancyProvider;
import io.github.shardtenancy.spi.TenancyPlan;
import org.hibernate.cfg.MultiTenancySettings;
import org.hibernate.context.spi.CurrentTenantIdentifierResolver;
import org.hibernate.engine.jdbc.connections.spi.MultiTenantConnectionProvider;

/**
 * The entry point: wires the directory, the shards, the router, the Hibernate integration, the mover, tenant and
 * shard administration and reconciliation, without Spring.
 *
 * <pre>{@code
 * try (ShardTenancy tenancy = ShardTenancy.builder()
 *         .directory(directoryDataSource)
 *         .shard("shard-1", shard1Config)
 *         .shard("shard-2", shard2Config)
 *         .tenantTables(List.of(new TenantTable("orders", "tenant_id")))
 *         .build()) {
 *     tenancy.start();
 *     tenancy.admin().create("acme");
 *     SessionFactory sessionFactory = new Configuration()
 *         .addProperties(tenancy.hibernateSettings()) ...
 * }
 * }</pre>
 *
 * <p>The directory and shard schemas (the directory changelog; the fence changelog and the application's tables on
 * every shard) must exist before {@link #start()}: migrations are the application's (the Liquibase module runs
 * them). Shards registered at runtime are migrated with the {@link ShardMigrator} given to the builder.
 *
 * <p>Implemented by the library (applications build it, never implement it). Thread-safe once built. {@link #close()} stops the router and the moves on the executor it created, and closes
 * the pools the builder created (pools passed in as {@link DataSource}s are left open).
 */
public interface ShardTenancy extends AutoCloseable {


	/** {@code hibernate.connection.handling_mode}. */
	String CONNECTION_HANDLING = "hibernate.connection.handling_mode";

	/**
	 * The connection handling mode of {@link #hibernateSettings()}: acquire at first use, release at the end of each
	 * transaction, so that every transaction borrows, fences and releases its own shard connection.
	 */
	String HANDLING_MODE = "DELAYED_ACQUISITION_AND_RELEASE_AFTER_TRANSACTION";

	/** @return a new builder; never {@code null} */
	static Builder builder() {
		return new Builder();
	}

	/**
	 * Loads the directory (one streamed snapshot) and starts the router's background sync, loads the slot table,
	 * records the configured shards ACTIVE in the shard registry (unless {@link Builder#registerShards(boolean)} is
	 * off; a shard that cannot be recorded, such as a retired one, is logged and skipped), and prepares the shards
	 * ({@link #prepareShards()}, unless {@link Builder#prepareShardsOnStart(boolean)} is off). Call it once the
	 * directory and shard schemas exist. Calling it again does not restart the router, but records and prepares again
	 * (both idempotent).
	 * @throws DirectoryUnavailableException if the directory cannot be read or written; the router is then not ready
	 * and its sync keeps trying
	 * @throws ShardTenancyConfigurationException as {@link #prepareShards()}
	 */
	void start();

	/**
	 * Installs on every tenant table of every shard the fence's per-row write check (with row-level security when
	 * {@link Builder#rowLevelSecurity(boolean)} is on, then checks the shard's role is subject to it) and, unless
	 * {@link Builder#installCapture(boolean)} is off, the online mover's change capture. Idempotent. Asks for the
	 * tenant tables if not asked yet.
	 * @throws ShardTenancyConfigurationException if a check or the capture cannot be installed on a table (a missing
	 * table or column, no primary key, an unreachable shard), naming the table and the shard, with setting
	 * {@code tenantTables}; or, with {@link Builder#requireRowLevelSecurity(boolean)}, if a shard's role skips
	 * row-level security (setting {@code requireRowLevelSecurity}); or if a shard's role cannot be read for that
	 * check (setting {@code rowLevelSecurity})
	 */
	void prepareShards();

	/** @return the router; never {@code null} */
	TenantRouter router();

	/**
	 * @return this instance's shards: those given to the builder, those registered at runtime, and those other
	 * instances registered (added on first use); never {@code null}
	 */
	ShardTopology topology();

	/**
	 * @param shardId a shard of the topology
	 * @return the fence dialect chosen for it; never {@code null}
	 * @throws UnknownShardException if the topology does not have it
	 */
	FenceDialect fenceDialect(String shardId);

	/**
	 * @return the mover, over the tenant tables ({@link Builder#tenantTables}), created on first use (the tenant tables
	 * are then asked for); never {@code null}
	 */
	TenantMover mover();

	/** @return tenant and shard administration; never {@code null} */
	TenantAdmin admin();

	/**
	 * Runs one reconciliation of the directory with the rows on the shards; runs are serialised.
	 * @return the report, also kept as {@link #lastReconciliation()}; a shard that cannot be read is listed as
	 * unreachable, not thrown; never {@code null}
	 * @throws DirectoryUnavailableException if the directory cannot be read (no report is kept)
	 */
	ReconciliationReport reconcile();

	/** @return the report of the latest {@link #reconcile()}; empty before the first one */
	Optional<ReconciliationReport> lastReconciliation();

	/** @return the directory database's pool (for its migrations and health checks); never {@code null} */
	DataSource directoryDataSource();

	/**
	 * @return the side of the router that directory watchers feed (a PostgreSQL {@code LISTEN} watcher, for
	 * example); never {@code null}
	 */
	RouteFeed routeFeed();

	/**
	 * @return Hibernate's connection provider for this tenancy: each connection is one of the bound tenant's shard, with
	 * the tenant and directory version set for the shard fence; never {@code null}
	 */
	MultiTenantConnectionProvider<String> connectionProvider();

	/** @return Hibernate's tenant resolver: the tenant bound by {@link TenantContext}; never {@code null} */
	CurrentTenantIdentifierResolver<String> tenantResolver();

	/**
	 * @return the settings that make a Hibernate {@code SessionFactory} use this tenancy (the connection provider, the
	 * tenant resolver and {@value #HANDLING_MODE}), to add to its configuration; a new modifiable map, never
	 * {@code null}
	 */
	default Map<String, Object> hibernateSettings() {
		Map<String, Object> settings = new LinkedHashMap<>();
		settings.put(MultiTenancySettings.MULTI_TENANT_CONNECTION_PROVIDER, connectionProvider());
		settings.put(MultiTenancySettings.MULTI_TENANT_IDENTIFIER_RESOLVER, tenantResolver());
		settings.put(CONNECTION_HANDLING, HANDLING_MODE);
		return settings;
	}

	/**
	 * @return a {@link DataSource} whose connections belong to the bound tenant's shard, for plain JDBC (for example
	 * Spring's {@code JdbcTemplate}); connections start in auto-commit mode as JDBC requires; never {@code null}
	 */
	DataSource dataSource();

	/**
	 * @return the observers added, now and later, as one that tells each of them in order (for a retry runner, see
	 * {@link io.github.shardtenancy.retry.RetryAttempts}); never {@code null}
	 */
	ShardTenancyObserver observer();

	/**
	 * Adds an observer told of directory reads, fence rejections, retries and moves, besides those already added.
	 * @param observer the observer; never {@code null}
	 * @throws NullPointerException if {@code observer} is {@code null}
	 */
	void addObserver(ShardTenancyObserver observer);

	/**
	 * Removes an observer added before; nothing happens if it was not added.
	 * @param observer the observer
	 * @return whether it was added before
	 */
	boolean removeObserver(ShardTenancyObserver observer);

	/**
	 * Interrupts the moves running on the executor the builder created (they resume or abort later from their last
	 * recorded step), stops the router, and closes the pools the builder created. Idempotent.
	 */
	void close();

	/**
	 * @return the library's implementation, found with {@link ServiceLoader}
	 * @throws ShardTenancyConfigurationException if none is on the class path (the core jar was repackaged without
	 * its {@code META-INF/services})
	 */
	private static ShardTenancyProvider provider() {
		return ServiceLoader.load(ShardTenancyProvider.class, ShardTenancy.class.getClassLoader()).findFirst()
			.orElseThrow(() -> new ShardTenancyConfigurationException("META-INF/services",
					"No " + ShardTenancyProvider.class.getName() + " found: the hibernate-shard-tenancy jar's "
							+ "META-INF/services entry is missing (keep it when repackaging)"));
	}

	/**
	 * Builds a {@link ShardTenancy}. Not thread-safe; build once. Pools given as {@link HikariConfig} are created when
	 * the method is called (a shard's, to choose its fence dialect, connects once); when adding a shard or building
	 * fails, the pools created so far are closed and the builder is spent.
	 */
	public static final class Builder {

		private final TenancyPlan plan = new TenancyPlan();

		private Builder() {
			this.plan.actor = "app@" + hostName();
		}

		private static String hostName() {
			try {
				return java.net.InetAddress.getLocalHost().getHostName();
			}
			catch (java.io.IOException ex) {
				return "localhost";
			}
		}

		/**
		 * @param dataSource a pool on the directory database (left open by {@link ShardTenancy#close()}); never
		 * {@code null}
		 * @return this builder
		 */
		public Builder directory(DataSource dataSource) {
			this.plan.directoryDataSource = Objects.requireNonNull(dataSource, "dataSource");
			this.plan.ownsDirectoryPool = false;
			return this;
		}

		/**
		 * @param config HikariCP settings of a pool on the directory database; the pool is created now and closed by
		 * {@link ShardTenancy#close()}; never {@code null}
		 * @return this builder
		 */
		public Builder directory(HikariConfig config) {
			this.plan.directoryDataSource = new HikariDataSource(Objects.requireNonNull(config, "config"));
			this.plan.ownsDirectoryPool = true;
			return this;
		}

		/**
		 * Adds a shard with a pool of the caller's (left open by {@link ShardTenancy#close()}), without a region; it is
		 * recorded in the registry without a JDBC URL, so other instances cannot connect to it from the registry.
		 * @param shardId logical id: 1 to 64 letters, digits, {@code . _ -}, starting with a letter or digit
		 * @param dataSource the pool; never {@code null}
		 * @return this builder
		 * @throws ShardTenancyConfigurationException if the id is invalid or taken, or no fence dialect supports the
		 * shard's database
		 */
		public Builder shard(String shardId, DataSource dataSource) {
			return shard(shardId, null, dataSource);
		}

		/**
		 * Adds a shard with a pool of the caller's (left open by {@link ShardTenancy#close()}).
		 * @param shardId logical id, see {@link #shard(String, DataSource)}
		 * @param region its region for placement, or {@code null}
		 * @param dataSource the pool; never {@code null}
		 * @return this builder
		 * @throws ShardTenancyConfigurationException if the id is invalid or taken, or no fence dialect supports the
		 * shard's database
		 */
		public Builder shard(String shardId, String region, DataSource dataSource) {
			Objects.requireNonNull(dataSource, "dataSource");
			this.plan.shards.add(new TenancyPlan.Shard(shardId, region, Objects.requireNonNull(dataSource, "dataSource"),
					false, null, null));
			return this;
		}

		/**
		 * Adds a shard without a region, with a pool created now and closed by {@link ShardTenancy#close()}.
		 * @param shardId logical id, see {@link #shard(String, DataSource)}
		 * @param config the pool settings; the pool name defaults to {@code shard-<id>}; never {@code null}
		 * @return this builder
		 * @throws ShardTenancyConfigurationException if the id is invalid or taken, or the shard cannot be reached to
		 * choose its fence dialect
		 */
		public Builder shard(String shardId, HikariConfig config) {
			return shard(shardId, null, config);
		}

		/**
		 * Adds a shard with a pool created now and closed by {@link ShardTenancy#close()}; its JDBC URL and user name
		 * (not its password) are recorded in the registry for other instances.
		 * @param shardId logical id, see {@link #shard(String, DataSource)}
		 * @param region its region for placement, or {@code null}
		 * @param config the pool settings; the pool name defaults to {@code shard-<id>}; never {@code null}
		 * @return this builder
		 * @throws ShardTenancyConfigurationException if the id is invalid or taken, or the shard cannot be reached to
		 * choose its fence dialect
		 */
		public Builder shard(String shardId, String region, HikariConfig config) {
			Objects.requireNonNull(config, "config");
			if (config.getPoolName() == null) {
				config.setPoolName("shard-" + shardId);
			}
			HikariDataSource pool = new HikariDataSource(config);
			this.plan.shards.add(new TenancyPlan.Shard(shardId, region, pool, true, config.getJdbcUrl(),
					config.getUsername()));
			return this;
		}

		/**
		 * @param settings the router's cache and sync settings; default {@link RouterSettings#defaults()}
		 * @return this builder
		 */
		public Builder router(RouterSettings settings) {
			this.plan.routerSettings = Objects.requireNonNull(settings, "settings");
			return this;
		}

		/**
		 * @param observer told of directory reads, rejections, retries and moves, besides the others added; never
		 * {@code null}
		 * @return this builder
		 */
		public Builder observer(ShardTenancyObserver observer) {
			this.plan.observers.add(Objects.requireNonNull(observer, "observer"));
			return this;
		}

		/**
		 * @param tables the tables holding tenant rows (moved, purged, reconciled, fenced row by row); default none,
		 * with which moves are refused; never {@code null}
		 * @return this builder
		 */
		public Builder tenantTables(List<TenantTable> tables) {
			List<TenantTable> copy = List.copyOf(tables);
			this.plan.tables = () -> copy;
			return this;
		}

		/**
		 * @param tables the tenant tables, asked once, on first need (the first move, administration call,
		 * reconciliation or shard preparation): for tables discovered from a session factory built after the tenancy
		 * ({@link HibernateTenantTables}); never {@code null}, nor may it answer {@code null}
		 * @return this builder
		 */
		public Builder tenantTables(Supplier<List<TenantTable>> tables) {
			this.plan.tables = Objects.requireNonNull(tables, "tables");
			return this;
		}

		/**
		 * @param actor who acts, recorded in the directory history and the move log; default {@code app@<host name>}
		 * @return this builder
		 */
		public Builder actor(String actor) {
			this.plan.actor = Objects.requireNonNull(actor, "actor");
			return this;
		}

		/**
		 * @param policy how new tenants are placed among the ACTIVE registered shards; default least loaded
		 * @return this builder
		 */
		public Builder placementPolicy(PlacementPolicy policy) {
			this.plan.placementPolicy = Objects.requireNonNull(policy, "policy");
			return this;
		}

		/**
		 * @param migrator migrates a shard registered at runtime ({@link TenantAdmin#registerShard}) before it is
		 * prepared and recorded; default none (the shard's schema must exist)
		 * @return this builder
		 */
		public Builder shardMigrator(ShardMigrator migrator) {
			this.plan.shardMigrator = Objects.requireNonNull(migrator, "migrator");
			return this;
		}

		/**
		 * @param connector connects to shards other instances registered; default
		 * {@link ShardConnector#urlAndUser()}
		 * @return this builder
		 */
		public Builder shardConnector(ShardConnector connector) {
			this.plan.shardConnector = Objects.requireNonNull(connector, "connector");
			return this;
		}

		/**
		 * @param settings how the admin's slot moves, overrides and drains move tenants; default
		 * {@link MoveSettings#defaults()} (online)
		 * @return this builder
		 */
		public Builder moveSettings(MoveSettings settings) {
			this.plan.moveSettings = Objects.requireNonNull(settings, "settings");
			return this;
		}

		/**
		 * @param delay how long after the flip of a stop-the-world move ({@link TenantAdmin#move}) the source's rows
		 * are deleted, {@code >= 0}; default 5 seconds
		 * @return this builder
		 * @throws IllegalArgumentException if it is negative
		 */
		public Builder stopTheWorldCleanDelay(Duration delay) {
			if (delay.isNegative()) {
				throw new IllegalArgumentException("delay must not be negative: " + delay);
			}
			this.plan.stopTheWorldCleanDelay = delay;
			return this;
		}

		/**
		 * @param executor runs moves started with {@link TenantMover#move}, halves of verifications and delayed
		 * cleans; owned by the caller, who shuts it down after {@link ShardTenancy#close()}. Default: one the tenancy
		 * creates (at most 4 daemon threads, 64 queued tasks) and shuts down on close
		 * @return this builder
		 */
		public Builder moveExecutor(Executor executor) {
			this.plan.moveExecutor = Objects.requireNonNull(executor, "executor");
			return this;
		}

		/**
		 * @param lease how long a move's owner may stay silent before another mover takes the move over,
		 * {@code >= 0}; default 30 seconds
		 * @return this builder
		 * @throws IllegalArgumentException if it is negative
		 */
		public Builder moveLease(Duration lease) {
			if (lease.isNegative()) {
				throw new IllegalArgumentException("lease must not be negative: " + lease);
			}
			this.plan.moveLease = lease;
			return this;
		}

		/**
		 * @param hook called after each recorded step of a move; default none
		 * @return this builder
		 */
		public Builder moveHook(MoveHook hook) {
			this.plan.moveHook = Objects.requireNonNull(hook, "hook");
			return this;
		}

		/**
		 * @param on whether the fence write check also switches row-level security on for the tenant tables (where
		 * the dialect has it: PostgreSQL); default off
		 * @return this builder
		 */
		public Builder rowLevelSecurity(boolean on) {
			this.plan.rowLevelSecurity = on;
			return this;
		}

		/**
		 * @param on whether a shard whose role skips row-level security (a superuser or {@code BYPASSRLS}) fails
		 * {@link ShardTenancy#prepareShards()}, instead of a logged warning; default off
		 * @return this builder
		 */
		public Builder requireRowLevelSecurity(boolean on) {
			this.plan.requireRowLevelSecurity = on;
			return this;
		}

		/**
		 * @param on whether {@link ShardTenancy#prepareShards()} installs the online mover's change capture too (a
		 * move installs it anyway; on H2 creating it under concurrent writes can fail them); default on
		 * @return this builder
		 */
		public Builder installCapture(boolean on) {
			this.plan.installCapture = on;
			return this;
		}

		/**
		 * @param on whether {@link ShardTenancy#start()} records the builder's shards ACTIVE in the shard registry
		 * (eligible for placement); default on
		 * @return this builder
		 */
		public Builder registerShards(boolean on) {
			this.plan.registerShards = on;
			return this;
		}

		/**
		 * @param on whether {@link ShardTenancy#start()} calls {@link ShardTenancy#prepareShards()}; switch it off
		 * when the tenant tables are known only after start (a session factory built on this tenancy), and prepare
		 * the shards then; default on
		 * @return this builder
		 */
		public Builder prepareShardsOnStart(boolean on) {
			this.plan.prepareShardsOnStart = on;
			return this;
		}

		private void abandon() {
			for (TenancyPlan.Shard shard : this.plan.shards) {
				if (shard.owned() && shard.dataSource() instanceof HikariDataSource pool) {
					pool.close();
				}
			}
			if (this.plan.ownsDirectoryPool && this.plan.directoryDataSource instanceof HikariDataSource pool) {
				pool.close();
			}
		}

		/**
		 * Builds the tenancy with the library's implementation ({@link ShardTenancyProvider}, found with
		 * {@link ServiceLoader}). Each shard is connected once, to choose its fence dialect.
		 * @return the tenancy, not started yet ({@link ShardTenancy#start()})
		 * @throws ShardTenancyConfigurationException if no directory or no shard was given, a shard id is invalid or
		 * taken, or no fence dialect supports a shard's database (the pools the builder created are then closed)
		 */
		public ShardTenancy build() {
			if (this.plan.directoryDataSource == null) {
				throw new ShardTenancyConfigurationException("directory",
						"No directory database is configured: call directory(...) on the builder");
			}
			if (this.plan.shards.isEmpty()) {
				abandon();
				throw new ShardTenancyConfigurationException("shards",
						"No shards are configured: call shard(...) on the builder at least once");
			}
			try {
				return provider().create(this.plan);
			}
			catch (RuntimeException ex) {
				abandon();
				throw ex;
			}
		}

	}

}
