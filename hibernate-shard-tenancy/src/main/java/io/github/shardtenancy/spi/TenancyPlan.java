package io.github.shardtenancy.spi;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

import javax.sql.DataSource;

import io.github.shardtenancy.IdCheck;
import io.github.shardtenancy.IdSettings;
import io.github.shardtenancy.InstanceSettings;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.RouterSettings;
import io.github.shardtenancy.TenantTable;
import org.jspecify.annotations.Nullable;

/**
 * What {@link io.github.shardtenancy.ShardTenancyBuilder} collected, handed to the {@link ShardTenancyProvider} that
 * builds the tenancy. Filled by the builder only; applications configure the builder, never this. Not thread-safe.
 */
public final class TenancyPlan {

	/**
	 * One shard added to the builder.
	 * @param shardId its logical id
	 * @param region its region for placement, or {@code null}
	 * @param dataSource its pool
	 * @param owned whether the tenancy created the pool and closes it
	 * @param jdbcUrl the JDBC URL recorded in the registry for other instances, or {@code null}
	 * @param username the database user recorded with it, or {@code null}
	 * @param unreachable why its database could not be reached when the pool was created (its pool then opens
	 * connections only when asked), or {@code null} if it was reached
	 */
	public record Shard(String shardId, @Nullable String region, DataSource dataSource, boolean owned,
			@Nullable String jdbcUrl, @Nullable String username, @Nullable String unreachable) {
	}

	/** The directory database's pool. */
	public @Nullable DataSource directoryDataSource;

	/** Whether closing the tenancy closes the directory pool. */
	public boolean ownsDirectoryPool;

	/** The shards, in the order added. */
	public final List<Shard> shards = new ArrayList<>();

	/** The router's settings. */
	public RouterSettings routerSettings = RouterSettings.defaults();

	/** Observers added to the router. */
	public final List<ShardTenancyObserver> observers = new ArrayList<>();

	/** The tenant tables, asked once, on first use. */
	public Supplier<List<TenantTable>> tables = List::of;

	/**
	 * The reference tables (same rows on every shard, readable with no tenant bound), asked once, on first use.
	 */
	public Supplier<? extends java.util.Collection<String>> referenceTables = List::of;

	/**
	 * The reference tables declared by name, known before any session factory is built (those {@link #referenceTables}
	 * answers when they were given by name; empty when they are discovered), for the entity check.
	 */
	public List<String> declaredReferenceTables = List.of();

	/** Who acts, recorded in the directory history. */
	public String actor = "app@localhost";

	/** How new tenants are placed. */
	public PlacementPolicy placementPolicy = new LeastLoadedPlacement();

	/** Migrates a shard registered at runtime before it is prepared and recorded. */
	public ShardMigrator shardMigrator = (shardId, dataSource, dialect) -> {
	};

	/** Connects to shards registered by other instances. */
	public ShardPoolFactory shardPoolFactory = ShardPoolFactory.urlAndUser();

	/** The online move settings (slot moves, overrides, drains). */
	public MoveSettings moveSettings = MoveSettings.defaults();

	/** The clean delay of the admin's stop-the-world moves. */
	public Duration stopTheWorldCleanDelay = Duration.ofSeconds(5);

	/** Runs the router's background sync, or {@code null} for a thread the router creates and owns. */
	public @Nullable BackgroundScheduler backgroundScheduler;

	/** The mover's executor, or {@code null} for one the wiring creates and owns. */
	public @Nullable Executor moveExecutor;

	/** The mover's lease. */
	public Duration moveLease = Duration.ofSeconds(30);

	/** The mover's hook. */
	public MoveHook moveHook = MoveHook.NONE;

	/** The seeders of new tenants, in order. */
	public final List<TenantSeeder> seeders = new ArrayList<>();

	/** Whether the write check switches row-level security on (where the dialect has it); default on. */
	public boolean rowLevelSecurity = true;

	/** Whether a shard role that skips row-level security fails the preparation. */
	public boolean requireRowLevelSecurity;

	/** {@link io.github.shardtenancy.ShardTenancyBuilder#unreachableShards}. */
	public io.github.shardtenancy.UnreachableShardPolicy unreachableShardPolicy =
			io.github.shardtenancy.UnreachableShardPolicy.FAIL;

	/** {@link io.github.shardtenancy.ShardTenancyBuilder#unreachableShards}: how often a pending shard is tried. */
	public Duration unreachableShardRetry = Duration.ofSeconds(10);

	/** {@link io.github.shardtenancy.ShardTenancyBuilder#shardOwners}: per shard id, the owner's DataSource or null. */
	public java.util.function.Function<String, @Nullable DataSource> shardOwners = (shardId) -> null;

	/** {@link io.github.shardtenancy.ShardTenancyBuilder#strictSecurity(boolean)}. */
	public boolean strictSecurity;

	/** {@link io.github.shardtenancy.ShardTenancyBuilder#referenceRole(String)}. */
	public @Nullable String referenceRole = io.github.shardtenancy.ShardTenancyBuilder.DEFAULT_REFERENCE_ROLE;

	/** Whether the change capture is installed with the write check. */
	public boolean installCapture = true;

	/** Whether the configured shards are recorded in the registry at start. */
	public boolean registerShards = true;

	/** Whether starting the tenancy prepares the shards. */
	public boolean prepareShardsOnStart = true;

	/** The settings of {@link io.github.shardtenancy.ShardSafeId} ids. */
	public IdSettings idSettings = IdSettings.defaults();

	/** What a session factory on the tenancy does with tenant entities whose ids would collide after a move. */
	public IdCheck idCheck = IdCheck.FAIL;

	/** What a session factory on the tenancy does with entities that are neither tenant nor reference data. */
	public io.github.shardtenancy.EntityCheck entityCheck = io.github.shardtenancy.EntityCheck.FAIL;

	/** Told when a shard's pool joins or leaves the topology, in the order added. */
	public final List<ShardPoolListener> shardPoolListeners = new ArrayList<>();

	/** The instance heartbeat's settings. */
	public InstanceSettings instanceSettings = InstanceSettings.defaults();

	/** Dual read of moving tenants; off by default. */
	public io.github.shardtenancy.DualReadSettings dualReadSettings = io.github.shardtenancy.DualReadSettings.defaults();

	/** Whether each tenant connection's traffic is counted for the load figures; off by default. */
	public boolean loadTracking;

	/** The length of one window of the load figures (they cover one to two windows). */
	public Duration loadWindow = Duration.ofMinutes(5);

	/** The most tenants whose traffic is kept (the least recently seen are dropped first). */
	public long loadMaxTenants = 100_000;
	/**
	 * A read replica of a shard.
	 * @param shardId the shard
	 * @param name the replica's name, unique within the shard
	 * @param config its pool settings
	 */
	public record ReplicaPool(String shardId, String name, com.zaxxer.hikari.HikariConfig config) {
	}

	/** The read replicas, in the order given. */
	public final List<ReplicaPool> replicas = new ArrayList<>();

	/** Whether and how read-only transactions go to replicas. */
	public io.github.shardtenancy.ReplicaSettings replicaSettings = io.github.shardtenancy.ReplicaSettings.defaults();

}
