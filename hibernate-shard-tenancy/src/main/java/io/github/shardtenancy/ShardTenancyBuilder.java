package io.github.shardtenancy;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.ServiceLoader;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.spi.BackgroundScheduler;
import io.github.shardtenancy.spi.MoveHook;
import io.github.shardtenancy.spi.TenantSeeder;
import io.github.shardtenancy.spi.PlacementPolicy;
import io.github.shardtenancy.spi.ShardPoolFactory;
import io.github.shardtenancy.spi.ShardPoolListener;
import io.github.shardtenancy.spi.ShardMigrator;
import io.github.shardtenancy.spi.ShardTenancyObserver;
import io.github.shardtenancy.spi.ShardTenancyProvider;
import io.github.shardtenancy.spi.TenancyPlan;
import org.jspecify.annotations.Nullable;

/**
 * Builds a {@link ShardTenancy}. Not thread-safe; build once. Pools given as {@link HikariConfig} are created when
 * the method is called; shard ids and fence dialects are checked by {@link #build()} (each shard connects once then,
 * to choose its dialect). When building fails, the pools the builder created are closed and the builder is spent.
 */
public final class ShardTenancyBuilder {

	/** The role work with no tenant bound runs as unless {@link #referenceRole(String)} says otherwise. */
	public static final String DEFAULT_REFERENCE_ROLE = "shard_tenancy_reference";

	private final TenancyPlan plan = new TenancyPlan();

	ShardTenancyBuilder() {
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
	public ShardTenancyBuilder directory(DataSource dataSource) {
		this.plan.directoryDataSource = Objects.requireNonNull(dataSource, "dataSource");
		this.plan.ownsDirectoryPool = false;
		return this;
	}

	/**
	 * @param config HikariCP settings of a pool on the directory database; the pool is created now and closed by
	 * {@link ShardTenancy#close()}; never {@code null}
	 * @return this builder
	 */
	public ShardTenancyBuilder directory(HikariConfig config) {
		this.plan.directoryDataSource = pool(Objects.requireNonNull(config, "config"), "shard-tenancy.directory.url",
				"The directory database cannot be reached at start-up", null);
		this.plan.ownsDirectoryPool = true;
		return this;
	}

	/**
	 * Adds a shard with a pool of the caller's (left open by {@link ShardTenancy#close()}), without a region; it is
	 * recorded in the registry without a JDBC URL, so other instances cannot connect to it from the registry.
	 * @param shardId logical id: 1 to 64 letters, digits, {@code . _ -}, starting with a letter or digit
	 * @param dataSource the pool; never {@code null}
	 * @return this builder
	 * @throws NullPointerException if the pool is {@code null} (the id and the database are checked by
	 * {@link #build()})
	 */
	public ShardTenancyBuilder shard(String shardId, DataSource dataSource) {
		return shard(shardId, null, dataSource);
	}

	/**
	 * Adds a shard with a pool of the caller's (left open by {@link ShardTenancy#close()}).
	 * @param shardId logical id, see {@link #shard(String, DataSource)}
	 * @param region its region for placement, or {@code null}
	 * @param dataSource the pool; never {@code null}
	 * @return this builder
	 * @throws NullPointerException if the pool is {@code null} (the id and the database are checked by
	 * {@link #build()})
	 */
	public ShardTenancyBuilder shard(String shardId, String region, DataSource dataSource) {
		this.plan.shards.add(new TenancyPlan.Shard(shardId, region, Objects.requireNonNull(dataSource, "dataSource"),
				false, null, null, null));
		return this;
	}

	/**
	 * Adds a shard without a region, with a pool created now and closed by {@link ShardTenancy#close()}.
	 * @param shardId logical id, see {@link #shard(String, DataSource)}
	 * @param config the pool settings; the pool name defaults to {@code shard-<id>}; never {@code null}
	 * @return this builder
	 * @throws NullPointerException if the settings are {@code null} (the id and the database are checked by
	 * {@link #build()})
	 */
	public ShardTenancyBuilder shard(String shardId, HikariConfig config) {
		return shard(shardId, null, config);
	}

	/**
	 * Adds a shard with a pool created now and closed by {@link ShardTenancy#close()}; its JDBC URL and user name
	 * (not its password) are recorded in the registry for other instances.
	 * @param shardId logical id, see {@link #shard(String, DataSource)}
	 * @param region its region for placement, or {@code null}
	 * @param config the pool settings; the pool name defaults to {@code shard-<id>}; never {@code null}
	 * @return this builder
	 * @throws NullPointerException if the settings are {@code null} (the id and the database are checked by
	 * {@link #build()})
	 */
	public ShardTenancyBuilder shard(String shardId, String region, HikariConfig config) {
		Objects.requireNonNull(config, "config");
		if (config.getPoolName() == null) {
			config.setPoolName("shard-" + shardId);
		}
		HikariDataSource pool;
		String unreachable = null;
		try {
			pool = new HikariDataSource(config);
		}
		catch (com.zaxxer.hikari.pool.HikariPool.PoolInitializationException ex) {
			Throwable reason = (ex.getCause() != null) ? ex.getCause() : ex;
			unreachable = "Shard '" + shardId + "' cannot be reached at start-up (" + config.getJdbcUrl() + ", user "
					+ config.getUsername() + "): " + reason.getMessage();
			// A pool that opens connections only when asked: the shard may answer later (UnreachableShardPolicy).
			HikariConfig later = new HikariConfig();
			config.copyStateTo(later);
			later.setInitializationFailTimeout(-1);
			pool = new HikariDataSource(later);
		}
		this.plan.shards.add(new TenancyPlan.Shard(shardId, region, pool, true, config.getJdbcUrl(),
				config.getUsername(), unreachable));
		return this;
	}

	/**
	 * @param policy what the start does with a configured shard whose database cannot be reached: fail (the default)
	 * or start without it and add it when it answers
	 * @param retryInterval with {@link UnreachableShardPolicy#START_WITHOUT}, how long to wait between tries of a
	 * shard that has not answered yet; positive; default 10 seconds
	 * @return this builder
	 * @throws IllegalArgumentException if the interval is not positive
	 * @throws NullPointerException if an argument is {@code null}
	 */
	public ShardTenancyBuilder unreachableShards(UnreachableShardPolicy policy, Duration retryInterval) {
		if (retryInterval.isZero() || retryInterval.isNegative()) {
			throw new IllegalArgumentException("The interval between tries of an unreachable shard must be positive: "
					+ retryInterval);
		}
		this.plan.unreachableShardPolicy = Objects.requireNonNull(policy, "policy");
		this.plan.unreachableShardRetry = retryInterval;
		return this;
	}

	/**
	 * A HikariCP pool, whose first connection HikariCP opens now (unless {@code initializationFailTimeout} is
	 * negative): a database that cannot be reached is named with its setting instead of HikariCP's
	 * {@code PoolInitializationException} alone.
	 */
	private static HikariDataSource pool(HikariConfig config, String setting, String what, String shardId) {
		try {
			return new HikariDataSource(config);
		}
		catch (com.zaxxer.hikari.pool.HikariPool.PoolInitializationException ex) {
			Throwable reason = (ex.getCause() != null) ? ex.getCause() : ex;
			throw new ShardTenancyConfigurationException(setting, what + " (" + config.getJdbcUrl() + ", user "
					+ config.getUsername() + "): " + reason.getMessage() + ". Check " + setting
					+ ", the user and password, and that the database is up", shardId);
		}
	}

	/**
	 * Fails for the first shard that could not be reached when its pool was created, unless the policy is to start
	 * without it; the caller then closes the pools.
	 */
	private void requireReachableShards() {
		if (this.plan.unreachableShardPolicy == UnreachableShardPolicy.START_WITHOUT) {
			return;
		}
		for (TenancyPlan.Shard shard : this.plan.shards) {
			if (shard.unreachable() != null) {
				String setting = "shard-tenancy.shards." + shard.shardId() + ".url";
				throw new ShardTenancyConfigurationException(setting, shard.unreachable() + ". Check " + setting
						+ ", the user and password, and that the database is up; or set "
						+ "shard-tenancy.unreachable-shard-policy=start-without "
						+ "(ShardTenancyBuilder.unreachableShards) to start without it and add it when it answers",
						shard.shardId());
			}
		}
	}

	/**
	 * @param settings the router's cache and sync settings; default {@link RouterSettings#defaults()}
	 * @return this builder
	 */
	public ShardTenancyBuilder router(RouterSettings settings) {
		this.plan.routerSettings = Objects.requireNonNull(settings, "settings");
		return this;
	}

	/**
	 * @param observer told of directory reads, rejections, retries and moves, besides the others added; never
	 * {@code null}
	 * @return this builder
	 */
	public ShardTenancyBuilder observer(ShardTenancyObserver observer) {
		this.plan.observers.add(Objects.requireNonNull(observer, "observer"));
		return this;
	}

	/**
	 * @param tables the tables holding tenant rows (moved, purged, reconciled, fenced row by row); default none,
	 * with which moves are refused; never {@code null}
	 * @return this builder
	 */
	public ShardTenancyBuilder tenantTables(List<TenantTable> tables) {
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
	public ShardTenancyBuilder tenantTables(Supplier<List<TenantTable>> tables) {
		this.plan.tables = Objects.requireNonNull(tables, "tables");
		return this;
	}

	/**
	 * Declares reference tables: tables with the same rows on every shard (see {@link ReferenceData}), readable with
	 * no tenant bound and written through {@link ShardTenancy#referenceTables()}. Default none. These tables are known
	 * when a session factory is built on the tenancy, so an entity mapped to one passes the {@link EntityCheck}
	 * without {@link ReferenceData}. Replaces the tables of an earlier call of either {@code referenceTables} method.
	 * @param tables table names, plain SQL identifiers (optionally schema-qualified); never {@code null}
	 * @return this builder
	 */
	public ShardTenancyBuilder referenceTables(java.util.Collection<String> tables) {
		List<String> copy = List.copyOf(tables);
		this.plan.referenceTables = () -> copy;
		this.plan.declaredReferenceTables = copy;
		return this;
	}

	/**
	 * @param tables the reference tables, asked once, on first need: for tables discovered from a session factory
	 * built after the tenancy ({@link HibernateTenantTables#referenceTables}); never {@code null}, nor may it answer
	 * {@code null}. Replaces the tables of an earlier call of either {@code referenceTables} method. The
	 * {@link EntityCheck} does not ask this supplier (the session factory it would discover from is still being
	 * built): it knows {@link ReferenceData} entities from their annotation
	 * @return this builder
	 */
	public ShardTenancyBuilder referenceTables(Supplier<? extends java.util.Collection<String>> tables) {
		this.plan.referenceTables = Objects.requireNonNull(tables, "tables");
		this.plan.declaredReferenceTables = List.of();
		return this;
	}

	/**
	 * @param actor who acts, recorded in the directory history and the move log; default {@code app@<host name>}
	 * @return this builder
	 */
	public ShardTenancyBuilder actor(String actor) {
		this.plan.actor = Objects.requireNonNull(actor, "actor");
		return this;
	}

	/**
	 * @param policy how new tenants are placed among the ACTIVE registered shards; default least loaded
	 * @return this builder
	 */
	public ShardTenancyBuilder placementPolicy(PlacementPolicy policy) {
		this.plan.placementPolicy = Objects.requireNonNull(policy, "policy");
		return this;
	}

	/**
	 * @param migrator migrates a shard registered at runtime ({@link TenantAdmin#registerShard}) before it is
	 * prepared and recorded; default none (the shard's schema must exist)
	 * @return this builder
	 */
	public ShardTenancyBuilder shardMigrator(ShardMigrator migrator) {
		this.plan.shardMigrator = Objects.requireNonNull(migrator, "migrator");
		return this;
	}

	/**
	 * @param factory creates the pools of shards other instances registered; default
	 * {@link ShardPoolFactory#urlAndUser()}
	 * @return this builder
	 */
	public ShardTenancyBuilder shardPoolFactory(ShardPoolFactory factory) {
		this.plan.shardPoolFactory = Objects.requireNonNull(factory, "factory");
		return this;
	}

	/**
	 * @param listener told when a shard's pool joins the topology (from {@link #build()} on, including the shards
	 * added to this builder) or leaves it, besides the others added; never {@code null}
	 * @return this builder
	 */
	public ShardTenancyBuilder shardPoolListener(ShardPoolListener listener) {
		this.plan.shardPoolListeners.add(Objects.requireNonNull(listener, "listener"));
		return this;
	}

	/**
	 * @param settings how the admin's slot moves, overrides and drains move tenants; default
	 * {@link MoveSettings#defaults()} (online)
	 * @return this builder
	 */
	public ShardTenancyBuilder moveSettings(MoveSettings settings) {
		this.plan.moveSettings = Objects.requireNonNull(settings, "settings");
		return this;
	}

	/**
	 * @param delay how long after the flip of a stop-the-world move ({@link TenantAdmin#move}) the source's rows
	 * are deleted, {@code >= 0}; default 5 seconds
	 * @return this builder
	 * @throws IllegalArgumentException if it is negative
	 */
	public ShardTenancyBuilder stopTheWorldCleanDelay(Duration delay) {
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
	public ShardTenancyBuilder moveExecutor(Executor executor) {
		this.plan.moveExecutor = Objects.requireNonNull(executor, "executor");
		return this;
	}

	/**
	 * @param scheduler runs the router's background directory sync (every {@link RouterSettings#syncInterval()});
	 * owned by the caller, who keeps it running while the tenancy is open and shuts it down after
	 * {@link ShardTenancy#close()}, which cancels the sync. Default: a daemon thread the router creates and stops on
	 * close
	 * @return this builder
	 * @throws NullPointerException if {@code scheduler} is {@code null}
	 */
	public ShardTenancyBuilder backgroundScheduler(BackgroundScheduler scheduler) {
		this.plan.backgroundScheduler = Objects.requireNonNull(scheduler, "scheduler");
		return this;
	}

	/**
	 * @param lease how long a move's owner may stay silent before another mover takes the move over,
	 * {@code >= 0}; default 30 seconds
	 * @return this builder
	 * @throws IllegalArgumentException if it is negative
	 */
	public ShardTenancyBuilder moveLease(Duration lease) {
		if (lease.isNegative()) {
			throw new IllegalArgumentException("lease must not be negative: " + lease);
		}
		this.plan.moveLease = lease;
		return this;
	}

	/**
	 * @param settings the dual read of moving tenants ({@link DualRead}); default off
	 * @return this builder
	 * @throws NullPointerException if it is {@code null}
	 */
	public ShardTenancyBuilder dualRead(DualReadSettings settings) {
		this.plan.dualReadSettings = Objects.requireNonNull(settings, "settings");
		return this;
	}

	/**
	 * @param hook called after each recorded step of a move; default none
	 * @return this builder
	 */
	public ShardTenancyBuilder moveHook(MoveHook hook) {
		this.plan.moveHook = Objects.requireNonNull(hook, "hook");
		return this;
	}

	/**
	 * Adds a seeder of new tenants: {@link TenantAdmin#create(String)} runs every seeder, in the order added, in one
	 * transaction on the new tenant's shard with the tenant bound, before it returns; see {@link TenantSeeder} and
	 * {@link TenantAdmin#seed(String)}. Default none.
	 * @param seeder the seeder
	 * @return this builder
	 */
	public ShardTenancyBuilder tenantSeeder(TenantSeeder seeder) {
		this.plan.seeders.add(Objects.requireNonNull(seeder, "seeder"));
		return this;
	}

	/**
	 * @param on whether the fence write check also switches row-level security on for the tenant tables (where
	 * the dialect has it: PostgreSQL), so that a tenant-bound transaction, plain JDBC and native SQL included, reads
	 * and writes only its tenant's rows; {@code false} switches it off again. Switching it either way needs the
	 * tables' owner. It holds only for a shard role without {@code SUPERUSER} and {@code BYPASSRLS} (see
	 * {@link #requireRowLevelSecurity(boolean)}). H2 has none: plain JDBC reads there are not filtered by tenant.
	 * Default on.
	 * @return this builder
	 */
	public ShardTenancyBuilder rowLevelSecurity(boolean on) {
		this.plan.rowLevelSecurity = on;
		return this;
	}

	/**
	 * @param on whether a shard whose role skips row-level security (a superuser or {@code BYPASSRLS}) fails
	 * {@link ShardTenancy#prepareShards()}, instead of a logged warning; default off
	 * @return this builder
	 */
	public ShardTenancyBuilder requireRowLevelSecurity(boolean on) {
		this.plan.requireRowLevelSecurity = on;
		return this;
	}

	/**
	 * @param on whether a shard whose role has more privileges than an application's shard role needs fails
	 * {@link ShardTenancy#prepareShards()} naming every one, instead of one logged warning per shard: on PostgreSQL a
	 * superuser or {@code BYPASSRLS} role (as {@link #requireRowLevelSecurity(boolean)}), a member of one,
	 * {@code CREATEROLE}, the privilege to set {@code session_replication_role}, the owner of a tenant table on a
	 * shard without the event trigger that refuses DDL of a tenant's transaction, or a role that may read the fence's
	 * secret ({@code shard_fence_key}); on H2 an administrator (its default user {@code sa} is one). Default off.
	 * @return this builder
	 */
	public ShardTenancyBuilder strictSecurity(boolean on) {
		this.plan.strictSecurity = on;
		return this;
	}

	/**
	 * Separates the role that owns the shards' schema from the role the application works as: for each shard id, a
	 * {@link DataSource} that connects as the owner (the role that runs the migrations), or {@code null} for the
	 * shard's own pool. The library then migrates the shard ({@link #shardMigrator}) and installs its fence and change
	 * capture with the owner's connections, and grants the shard's role what it needs on the tables (on PostgreSQL
	 * {@code SELECT, INSERT, UPDATE, DELETE} on every table and {@code USAGE, SELECT} on every sequence of the schema,
	 * nothing on the fence's secret), so that the shard's role owns nothing. Asked on each preparation of a shard;
	 * connections are closed after use. Default: no owner, every shard prepared with its own pool.
	 * @param owners the owners' connections per shard id; never {@code null}
	 * @return this builder
	 */
	public ShardTenancyBuilder shardOwners(java.util.function.Function<String, @Nullable DataSource> owners) {
		this.plan.shardOwners = Objects.requireNonNull(owners, "owners");
		return this;
	}

	/**
	 * @param role the database role that work with no tenant bound (reads of reference tables) runs as, taken for
	 * each such transaction ({@code SET LOCAL ROLE} on PostgreSQL), so that the database refuses any table that is not
	 * a reference table whatever the SQL's shape; or {@code null} to run such work as the shard's own role. On
	 * preparing a shard the library makes the role ready where the shard's role may (creates it {@code NOLOGIN},
	 * grants it {@code SELECT} on the reference tables, grants the shard's role membership), and names in one
	 * warning what it may not (with {@link #strictSecurity(boolean)}, refuses to start). H2 has no such roles: there it
	 * does nothing. Default {@value #DEFAULT_REFERENCE_ROLE}.
	 * @return this builder
	 * @throws IllegalArgumentException if the name is empty or longer than 63 characters
	 */
	public ShardTenancyBuilder referenceRole(@Nullable String role) {
		if (role != null && (role.isEmpty() || role.length() > 63)) {
			throw new IllegalArgumentException("referenceRole: '" + role + "' is not a role name (1 to 63 "
					+ "characters), or pass null to run work with no tenant bound as the shard's own role");
		}
		this.plan.referenceRole = role;
		return this;
	}

	/**
	 * @param on whether {@link ShardTenancy#prepareShards()} installs the online mover's change capture too (a
	 * move installs it anyway; on H2 creating it under concurrent writes can fail them); default on
	 * @return this builder
	 */
	public ShardTenancyBuilder installCapture(boolean on) {
		this.plan.installCapture = on;
		return this;
	}

	/**
	 * @param on whether {@link ShardTenancy#start()} records the builder's shards ACTIVE in the shard registry
	 * (eligible for placement); default on
	 * @return this builder
	 */
	public ShardTenancyBuilder registerShards(boolean on) {
		this.plan.registerShards = on;
		return this;
	}

	/**
	 * @param on whether {@link ShardTenancy#start()} calls {@link ShardTenancy#prepareShards()}; switch it off
	 * when the tenant tables are known only after start (a session factory built on this tenancy), and prepare
	 * the shards then; default on
	 * @return this builder
	 */
	public ShardTenancyBuilder prepareShardsOnStart(boolean on) {
		this.plan.prepareShardsOnStart = on;
		return this;
	}

	/**
	 * @param settings the epoch, lease and tolerated clock step back of {@link ShardSafeId} ids; default
	 * {@link IdSettings#defaults()}
	 * @return this builder
	 * @throws NullPointerException if {@code settings} is {@code null}
	 */
	public ShardTenancyBuilder ids(IdSettings settings) {
		this.plan.idSettings = Objects.requireNonNull(settings, "settings");
		return this;
	}

	/**
	 * @param settings the instance heartbeat ({@link Instances}): this instance's id, how often it records the
	 * directory version it has applied, when silent or lagging instances are reported; default
	 * {@link InstanceSettings#defaults()} (on, every 10 seconds)
	 * @return this builder
	 * @throws NullPointerException if {@code settings} is {@code null}
	 * @throws IllegalArgumentException as {@link InstanceSettings#requireConsistent()}
	 */
	public ShardTenancyBuilder instances(InstanceSettings settings) {
		this.plan.instanceSettings = Objects.requireNonNull(settings, "settings").requireConsistent();
		return this;
	}

	/**
	 * @param check what a Hibernate session factory built on the tenancy does with a tenant entity whose id strategy
	 * would collide after a move ({@code IDENTITY}, {@code SEQUENCE}, {@code TABLE}...), and what the shards'
	 * preparation does with a tenant table column whose values the database generates (identity, serial,
	 * {@code AUTO_INCREMENT}, a sequence default); default {@link IdCheck#FAIL}
	 * @return this builder
	 * @throws NullPointerException if {@code check} is {@code null}
	 */
	public ShardTenancyBuilder idCheck(IdCheck check) {
		this.plan.idCheck = Objects.requireNonNull(check, "check");
		return this;
	}

	/**
	 * @param check what a Hibernate session factory built on the tenancy does with an entity that is neither tenant
	 * data nor reference data: no {@code @TenantId} attribute, not {@link ReferenceData}, and mapped to a table that is
	 * not declared with {@link #referenceTables(java.util.Collection)} (its rows would be saved with no tenant, read by
	 * every tenant of the shard, and left behind by moves); checked once, when the session factory is built; default
	 * {@link EntityCheck#FAIL} (setting {@code shard-tenancy.entities.check})
	 * @return this builder
	 * @throws NullPointerException if {@code check} is {@code null}
	 */
	public ShardTenancyBuilder entityCheck(EntityCheck check) {
		this.plan.entityCheck = Objects.requireNonNull(check, "check");
		return this;
	}

	/**
	 * Adds a read replica of a shard (a pool the tenancy creates, read-only, and closes). It serves read-only
	 * transactions only when {@link #replicaRouting(ReplicaSettings)} enables it.
	 * @param shardId the shard, added with {@code shard(...)}
	 * @param name the replica's name, unique within the shard
	 * @param config the replica's HikariCP settings
	 * @return this builder
	 * @throws NullPointerException if an argument is {@code null}
	 */
	public ShardTenancyBuilder replica(String shardId, String name, HikariConfig config) {
		this.plan.replicas.add(new TenancyPlan.ReplicaPool(Objects.requireNonNull(shardId, "shardId"),
				Objects.requireNonNull(name, "name"), Objects.requireNonNull(config, "config")));
		return this;
	}

	/**
	 * Sets whether and how read-only transactions go to replicas (default: {@link ReplicaSettings#defaults()}, off).
	 * @param settings the settings
	 * @return this builder
	 * @throws NullPointerException if {@code settings} is {@code null}
	 */
	public ShardTenancyBuilder replicaRouting(ReplicaSettings settings) {
		this.plan.replicaSettings = Objects.requireNonNull(settings, "settings");
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
	 * Counts each tenant's traffic on this instance for {@link ShardTenancy#load()} (transactions, rows written, time
	 * spent, when each tenant connection is released), kept in memory for one to two windows; default off (the load
	 * figures then have storage only).
	 * @param on whether to count
	 * @param window the length of one window, positive
	 * @param maxTenants the most tenants kept, positive (the least recently seen are dropped first)
	 * @return this builder
	 * @throws IllegalArgumentException if the window or {@code maxTenants} is not positive
	 * @throws NullPointerException if {@code window} is {@code null}
	 */
	public ShardTenancyBuilder loadTracking(boolean on, Duration window, long maxTenants) {
		if (window.isZero() || window.isNegative() || maxTenants < 1) {
			throw new IllegalArgumentException("The load window and the most tenants kept must be positive: " + window
					+ ", " + maxTenants);
		}
		this.plan.loadTracking = on;
		this.plan.loadWindow = window;
		this.plan.loadMaxTenants = maxTenants;
		return this;
	}

	/**
	 * Builds the tenancy with the library's implementation ({@link ShardTenancyProvider}, found with
	 * {@link ServiceLoader}). Each shard is connected once, to choose its fence dialect.
	 * @return the tenancy, not started yet ({@link ShardTenancy#start()})
	 * @throws ShardTenancyConfigurationException if no directory or no shard was given, a shard id is invalid or
	 * taken, no fence dialect supports a shard's database, or a shard cannot be reached and the
	 * {@link UnreachableShardPolicy} is to fail (the pools the builder created are then closed)
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
			requireReachableShards();
			return provider().create(this.plan);
		}
		catch (RuntimeException ex) {
			abandon();
			throw ex;
		}
	}

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

}
