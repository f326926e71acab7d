package io.github.shardtenancy.boot;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.shardtenancy.routing.DirectoryDownPolicy;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the shard tenancy auto-configuration, bound from {@code shard-tenancy.*}.
 *
 * <p>A plain mutable bean, populated once by Spring Boot's binder at start-up; not meant to be changed afterwards, and
 * not thread-safe for writes. Numeric settings are checked once bound: a value out of range fails the start with a
 * {@link io.github.shardtenancy.ShardTenancyConfigurationException} naming the property and the value.
 */
@ConfigurationProperties("shard-tenancy")
public class ShardTenancyProperties implements InitializingBean {

	/** Whether the auto-configuration is active at all. Default {@code true}. */
	private boolean enabled = true;

	/** The directory database (tenant to shard placements). Its {@code url} is required. */
	private final Directory directory = new Directory();

	/**
	 * The shards, by logical shard id (1 to 64 letters, digits, {@code . _ -}, starting with a letter or digit). At
	 * least one is required. Default: none.
	 */
	private final Map<String, Shard> shards = new LinkedHashMap<>();

	/** The router's cache of directory entries. */
	private final Cache cache = new Cache();

	/** The router's background directory sync. */
	private final Sync sync = new Sync();

	/**
	 * What routing does while the directory is unreachable: {@code serve-from-cache} (cached ACTIVE entries keep
	 * routing) or {@code fail-closed} (every lookup fails). Default {@code serve-from-cache}.
	 */
	private DirectoryDownPolicy directoryDownPolicy = DirectoryDownPolicy.SERVE_FROM_CACHE;

	/** Automatic retry of transactions rejected by the shard fence. */
	private final Retry retry = new Retry();

	/** Liquibase migrations of the directory and of every shard at start-up. */
	private final Liquibase liquibase = new Liquibase();

	/**
	 * The tables holding tenant rows, each as {@code table:column} (the column holding the tenant id). They are what
	 * a move copies and what the fence write check guards. Default: empty, meaning discovered from the Hibernate
	 * metamodel (every entity with an {@code @org.hibernate.annotations.TenantId} attribute, and the collection tables
	 * of such entities that have the same tenant column).
	 */
	private List<String> tenantTables = new ArrayList<>();

	/** The HTTP header carrying the tenant of a request. */
	private final Web web = new Web();

	/** Tenant moves. */
	private final Move move = new Move();

	/**
	 * Who is recorded in the directory history for the changes this application makes (creates, moves). Default
	 * {@code "app@" + the local host name}.
	 */
	private String actor;

	/** Tenant lifecycle: placement of new tenants and the shard registry. */
	private final Lifecycle lifecycle = new Lifecycle();

	/** The reconciliation job comparing the directory with the rows on the shards. */
	private final Reconciliation reconciliation = new Reconciliation();

	/** Settings of every shard pool the starter builds. */
	private final Pool pool = new Pool();

	/** What the shard fence enforces beyond its write checks (PostgreSQL shards). */
	private final Fence fence = new Fence();

	/**
	 * Checks the numeric settings once bound.
	 * @throws io.github.shardtenancy.ShardTenancyConfigurationException naming the first property out of range and
	 * its value
	 */
	@Override
	public void afterPropertiesSet() {
		ShardTenancyPropertiesValidation.validate(this);
	}

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public Directory getDirectory() {
		return this.directory;
	}

	public Map<String, Shard> getShards() {
		return this.shards;
	}

	public Cache getCache() {
		return this.cache;
	}

	public Sync getSync() {
		return this.sync;
	}

	public DirectoryDownPolicy getDirectoryDownPolicy() {
		return this.directoryDownPolicy;
	}

	public void setDirectoryDownPolicy(DirectoryDownPolicy directoryDownPolicy) {
		this.directoryDownPolicy = directoryDownPolicy;
	}

	public Retry getRetry() {
		return this.retry;
	}

	public Liquibase getLiquibase() {
		return this.liquibase;
	}

	public List<String> getTenantTables() {
		return this.tenantTables;
	}

	public void setTenantTables(List<String> tenantTables) {
		this.tenantTables = tenantTables;
	}

	public Web getWeb() {
		return this.web;
	}

	public Move getMove() {
		return this.move;
	}

	public Lifecycle getLifecycle() {
		return this.lifecycle;
	}

	public Reconciliation getReconciliation() {
		return this.reconciliation;
	}

	public Pool getPool() {
		return this.pool;
	}

	public Fence getFence() {
		return this.fence;
	}

	/** @return the configured actor, or {@code "app@" + host name} when none is configured; never {@code null} */
	public String getActor() {
		if (this.actor != null && !this.actor.isBlank()) {
			return this.actor;
		}
		return "app@" + hostName();
	}

	public void setActor(String actor) {
		this.actor = actor;
	}

	private static String hostName() {
		try {
			return InetAddress.getLocalHost().getHostName();
		}
		catch (UnknownHostException ex) {
			String env = System.getenv("HOSTNAME");
			return (env != null && !env.isBlank()) ? env : "unknown-host";
		}
	}

	/** Connection settings of the directory database. */
	public static class Directory {

		/** JDBC URL of the directory database. Required; no default. */
		private String url;

		/** Database user of the directory. Default: none (the driver's default). */
		private String username;

		/** Password of the directory user. Default: none. */
		private String password;

		/** Maximum size of the directory's own HikariCP pool, in connections. Default 4. */
		private int maximumPoolSize = 4;

		public String getUrl() {
			return this.url;
		}

		public void setUrl(String url) {
			this.url = url;
		}

		public String getUsername() {
			return this.username;
		}

		public void setUsername(String username) {
			this.username = username;
		}

		public String getPassword() {
			return this.password;
		}

		public void setPassword(String password) {
			this.password = password;
		}

		public int getMaximumPoolSize() {
			return this.maximumPoolSize;
		}

		public void setMaximumPoolSize(int maximumPoolSize) {
			this.maximumPoolSize = maximumPoolSize;
		}

	}

	/** Connection settings of one shard database. */
	public static class Shard {

		/** JDBC URL of the shard database. Required; no default. */
		private String url;

		/** Database user of the shard. Default: none (the driver's default). */
		private String username;

		/** Password of the shard user. Default: none. */
		private String password;

		/** Maximum size of the shard's HikariCP pool, in connections. Default 10. */
		private int maximumPoolSize = 10;

		/**
		 * The shard's region, recorded in the shard registry and used by the {@code region} placement policy (data
		 * residency). Default: none.
		 */
		private String region;

		/**
		 * How long a borrower waits for a connection of this shard's pool before failing (HikariCP
		 * {@code connectionTimeout}), at least 250 ms. Default: none, {@code shard-tenancy.pool.connection-timeout}.
		 */
		private Duration connectionTimeout;

		public Duration getConnectionTimeout() {
			return this.connectionTimeout;
		}

		public void setConnectionTimeout(Duration connectionTimeout) {
			this.connectionTimeout = connectionTimeout;
		}

		public String getRegion() {
			return this.region;
		}

		public void setRegion(String region) {
			this.region = region;
		}

		public String getUrl() {
			return this.url;
		}

		public void setUrl(String url) {
			this.url = url;
		}

		public String getUsername() {
			return this.username;
		}

		public void setUsername(String username) {
			this.username = username;
		}

		public String getPassword() {
			return this.password;
		}

		public void setPassword(String password) {
			this.password = password;
		}

		public int getMaximumPoolSize() {
			return this.maximumPoolSize;
		}

		public void setMaximumPoolSize(int maximumPoolSize) {
			this.maximumPoolSize = maximumPoolSize;
		}

	}

	/** The router's cache. */
	public static class Cache {

		/** Most directory entries the router caches before evicting the least recently used. Default 10,000,000. */
		private long maximumEntries = 10_000_000;

		/** How long an unknown tenant is remembered as unknown. Default 2 seconds. */
		private Duration negativeTtl = Duration.ofSeconds(2);

		public long getMaximumEntries() {
			return this.maximumEntries;
		}

		public void setMaximumEntries(long maximumEntries) {
			this.maximumEntries = maximumEntries;
		}

		public Duration getNegativeTtl() {
			return this.negativeTtl;
		}

		public void setNegativeTtl(Duration negativeTtl) {
			this.negativeTtl = negativeTtl;
		}

	}

	/** The router's background sync. */
	public static class Sync {

		/** How often the router polls the directory version for changes. Default 1 second. */
		private Duration interval = Duration.ofSeconds(1);

		/**
		 * With a PostgreSQL directory and {@code hibernate-shard-tenancy-postgresql} on the class path: whether to
		 * listen for the directory's {@code NOTIFY} pushes on a dedicated connection. Default true.
		 */
		private boolean listen = true;

		/**
		 * How often the PostgreSQL directory watcher polls as a safety net for missed notifications (and checks its
		 * listener connection). Default 30 seconds.
		 */
		private Duration safetyPoll = Duration.ofSeconds(30);

		public boolean isListen() {
			return this.listen;
		}

		public void setListen(boolean listen) {
			this.listen = listen;
		}

		public Duration getSafetyPoll() {
			return this.safetyPoll;
		}

		public void setSafetyPoll(Duration safetyPoll) {
			this.safetyPoll = safetyPoll;
		}

		public Duration getInterval() {
			return this.interval;
		}

		public void setInterval(Duration interval) {
			this.interval = interval;
		}

	}

	/** Tenant moves. */
	public static class Move {

		/**
		 * Stop-the-world moves ({@code TenantAdmin.move}): how long after a move's flip the tenant's rows are deleted
		 * from the source shard: the safety period that lets transactions which began on the source before the flip
		 * finish reading. Zero deletes them before the move returns. Default 5 seconds.
		 */
		private Duration cleanDelay = Duration.ofSeconds(5);

		/**
		 * Moves ({@code TenantMover} bean, {@code MoveSettings} bean): rows per bulk-copy batch and change-log
		 * entries per catch-up batch (at most 500 of those per statement), each committed on the target. At least 1.
		 * Default 10,000 rows.
		 */
		private int batchSize = 10_000;

		/**
		 * Online mover: pause after every copy and catch-up batch, to spare the source shard. Zero for none (the
		 * default).
		 */
		private Duration throttle = Duration.ZERO;

		/**
		 * Online mover: change-log entries (rows) left after a catch-up round at or below which the tenant is frozen
		 * for the final catch-up. The freeze window grows with it. At least 0. Default 20 rows.
		 */
		private long catchUpLagThreshold = 20;

		/**
		 * Online mover: catch-up rounds before the tenant is frozen whatever the lag. At least 1. Default 20.
		 */
		private int maxCatchUpRounds = 20;

		/**
		 * Online moves ({@code MoveSettings} bean, used by the lifecycle): how long the source rows are kept after the
		 * flip. Zero (the default) cleans them before the move returns; otherwise the mover cleans them on its
		 * executor after that time (or {@code TenantMover.resume} or {@code clean} does, after a restart).
		 */
		private Duration onlineCleanDelay = Duration.ZERO;

		/**
		 * Online mover: how long a move's owner may stay silent (no heartbeat in the move log) before another mover
		 * instance may take the move over with {@code resume}. Default 30 seconds.
		 */
		private Duration lease = Duration.ofSeconds(30);

		/**
		 * Whether the online mover's change capture trigger is installed on every tenant table of every shard at
		 * start-up, next to the fence's write check (a move installs it anyway, but on H2 creating a trigger under
		 * concurrent writes can fail them). Default {@code true}.
		 */
		private boolean installCapture = true;

		public Duration getCleanDelay() {
			return this.cleanDelay;
		}

		public void setCleanDelay(Duration cleanDelay) {
			this.cleanDelay = cleanDelay;
		}

		public int getBatchSize() {
			return this.batchSize;
		}

		public void setBatchSize(int batchSize) {
			this.batchSize = batchSize;
		}

		public Duration getThrottle() {
			return this.throttle;
		}

		public void setThrottle(Duration throttle) {
			this.throttle = throttle;
		}

		public long getCatchUpLagThreshold() {
			return this.catchUpLagThreshold;
		}

		public void setCatchUpLagThreshold(long catchUpLagThreshold) {
			this.catchUpLagThreshold = catchUpLagThreshold;
		}

		public int getMaxCatchUpRounds() {
			return this.maxCatchUpRounds;
		}

		public void setMaxCatchUpRounds(int maxCatchUpRounds) {
			this.maxCatchUpRounds = maxCatchUpRounds;
		}

		public Duration getOnlineCleanDelay() {
			return this.onlineCleanDelay;
		}

		public void setOnlineCleanDelay(Duration onlineCleanDelay) {
			this.onlineCleanDelay = onlineCleanDelay;
		}

		public Duration getLease() {
			return this.lease;
		}

		public void setLease(Duration lease) {
			this.lease = lease;
		}

		public boolean isInstallCapture() {
			return this.installCapture;
		}

		public void setInstallCapture(boolean installCapture) {
			this.installCapture = installCapture;
		}

	}

	/** Automatic retry of rejected transactions. */
	public static class Retry {

		/**
		 * Whether outermost {@code @Transactional} methods and Spring Data repository calls are retried automatically
		 * after a fence rejection. Default {@code true}. The programmatic
		 * {@link io.github.shardtenancy.boot.retry.ShardTenancyRetry} stays available either way.
		 */
		private boolean enabled = true;

		/**
		 * Total attempts, the first included, for rejections other than FROZEN, for genuine serialization failures
		 * (when retried) and for a shard that could not be reached. Default 5.
		 */
		private int maxAttempts = 5;

		/** Delay before the first retry. Default 10 ms. */
		private Duration initialDelay = Duration.ofMillis(10);

		/** Factor applied to the delay after each retry. Default 2.0. */
		private double multiplier = 2.0;

		/** Longest delay between two attempts. Default 500 ms. */
		private Duration maxDelay = Duration.ofMillis(500);

		/** Random extra or reduced delay added to each backoff, at most this much. Default 10 ms. */
		private Duration jitter = Duration.ofMillis(10);

		/**
		 * How long a FROZEN or INCOMING rejection (a move in progress) keeps being retried, measured from the start of the first
		 * attempt, regardless of {@code max-attempts}. Default 10 seconds.
		 */
		private Duration freezeWait = Duration.ofSeconds(10);

		/**
		 * Whether a genuine serialization failure (SQLSTATE 40001 without the fence marker) is retried as well, up to
		 * {@code max-attempts}; it never invalidates a cache entry. Default {@code true}.
		 */
		private boolean serializationFailures = true;

		/**
		 * Whether a rejected attempt is run again even when work independent of its own transaction (a
		 * {@code REQUIRES_NEW} transaction, an earlier transaction of the same unit of work) committed inside it,
		 * repeating that work. Default {@code false}: such an attempt ends in
		 * {@link io.github.shardtenancy.UnsafeToRerunException}; declare single methods safe with
		 * {@link io.github.shardtenancy.boot.retry.SafeToRerun} instead.
		 */
		private boolean safeToRerun;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public int getMaxAttempts() {
			return this.maxAttempts;
		}

		public void setMaxAttempts(int maxAttempts) {
			this.maxAttempts = maxAttempts;
		}

		public Duration getInitialDelay() {
			return this.initialDelay;
		}

		public void setInitialDelay(Duration initialDelay) {
			this.initialDelay = initialDelay;
		}

		public double getMultiplier() {
			return this.multiplier;
		}

		public void setMultiplier(double multiplier) {
			this.multiplier = multiplier;
		}

		public Duration getMaxDelay() {
			return this.maxDelay;
		}

		public void setMaxDelay(Duration maxDelay) {
			this.maxDelay = maxDelay;
		}

		public Duration getJitter() {
			return this.jitter;
		}

		public void setJitter(Duration jitter) {
			this.jitter = jitter;
		}

		public Duration getFreezeWait() {
			return this.freezeWait;
		}

		public void setFreezeWait(Duration freezeWait) {
			this.freezeWait = freezeWait;
		}

		public boolean isSafeToRerun() {
			return this.safeToRerun;
		}

		public void setSafeToRerun(boolean safeToRerun) {
			this.safeToRerun = safeToRerun;
		}

		public boolean isSerializationFailures() {
			return this.serializationFailures;
		}

		public void setSerializationFailures(boolean serializationFailures) {
			this.serializationFailures = serializationFailures;
		}

	}

	/** Liquibase migrations at start-up. */
	public static class Liquibase {

		/**
		 * Whether the directory changelog and, on every shard, the fence changelog and the application's shard
		 * changelogs run at start-up, before routing starts. Default {@code true}.
		 */
		private boolean enabled = true;

		/**
		 * The application's own changelogs (class-path locations, {@code classpath:} prefix allowed), run in order on
		 * every shard after the fence changelog. Default: none.
		 */
		private List<String> shardChangelogs = new ArrayList<>();

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public List<String> getShardChangelogs() {
			return this.shardChangelogs;
		}

		public void setShardChangelogs(List<String> shardChangelogs) {
			this.shardChangelogs = shardChangelogs;
		}

	}

	/** The tenant of an HTTP request. */
	public static class Web {

		/**
		 * Whether a servlet filter binds the tenant named in the request header for the request. Default
		 * {@code true}.
		 */
		private boolean enabled = true;

		/** The request header naming the tenant. Default {@code X-Tenant-Id}. */
		private String headerName = "X-Tenant-Id";

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public String getHeaderName() {
			return this.headerName;
		}

		public void setHeaderName(String headerName) {
			this.headerName = headerName;
		}

	}

	/** Placement policies for new tenants. */
	public enum Placement {

		/** The ACTIVE shard owning fewest tenants (a requested region restricts the candidates). */
		LEAST_LOADED,

		/** The least-loaded ACTIVE shard of the requested region, or of {@code lifecycle.default-region}. */
		REGION,

		/** The shard of the tenant's fixed slot (fixed-slot mode must be initialised). */
		SLOTS

	}

	/** Tenant lifecycle settings. */
	public static class Lifecycle {

		/**
		 * How {@code TenantLifecycle.create} places a tenant when neither an override nor the request names a shard:
		 * {@code least-loaded}, {@code region} or {@code slots}. Default {@code least-loaded}.
		 */
		private Placement placement = Placement.LEAST_LOADED;

		/** The region the {@code region} policy uses for requests that name none. Default: none (a region is required). */
		private String defaultRegion;

		/**
		 * Whether the configured shards ({@code shard-tenancy.shards}) are recorded ACTIVE in the shard registry at
		 * start-up, after their migration, so that placement can use them. Default {@code true}.
		 */
		private boolean registerShards = true;

		/**
		 * How often the shard registry is read to drop the pools of shards retired by other instances and to connect
		 * to shards they registered. Default 30 s.
		 */
		private Duration registrySyncInterval = Duration.ofSeconds(30);

		public Placement getPlacement() {
			return this.placement;
		}

		public void setPlacement(Placement placement) {
			this.placement = placement;
		}

		public String getDefaultRegion() {
			return this.defaultRegion;
		}

		public void setDefaultRegion(String defaultRegion) {
			this.defaultRegion = defaultRegion;
		}

		public boolean isRegisterShards() {
			return this.registerShards;
		}

		public void setRegisterShards(boolean registerShards) {
			this.registerShards = registerShards;
		}

		public Duration getRegistrySyncInterval() {
			return this.registrySyncInterval;
		}

		public void setRegistrySyncInterval(Duration registrySyncInterval) {
			this.registrySyncInterval = registrySyncInterval;
		}

	}

	/** Shard fence settings. */
	public static class Fence {

		/**
		 * Whether every tenant table of a PostgreSQL shard gets row-level security (its policy
		 * {@code shard_fence_tenant}, with {@code ENABLE} and {@code FORCE ROW LEVEL SECURITY}) when the fence is
		 * installed at start-up, so that a tenant's transaction reads only its tenant's rows, also with native SQL
		 * that has no tenant predicate. {@code false} drops the policy and disables row-level security on those
		 * tables. Changing it needs the tables' owner. Ignored on H2. Default {@code false}: it costs more routing
		 * throughput than the write fence's budget allows (see the README's Performance section).
		 */
		private boolean rowLevelSecurity = false;

		/**
		 * Whether start-up fails (a {@code ShardTenancyConfigurationException}) when row-level security is on but
		 * cannot hold on a shard because the shard's role is a superuser or has {@code BYPASSRLS} (PostgreSQL skips
		 * row-level security for both). {@code false} logs a warning naming the shard, the role and the remedy.
		 * Default {@code false}.
		 */
		private boolean requireRowLevelSecurity = false;

		public boolean isRowLevelSecurity() {
			return this.rowLevelSecurity;
		}

		public void setRowLevelSecurity(boolean rowLevelSecurity) {
			this.rowLevelSecurity = rowLevelSecurity;
		}

		public boolean isRequireRowLevelSecurity() {
			return this.requireRowLevelSecurity;
		}

		public void setRequireRowLevelSecurity(boolean requireRowLevelSecurity) {
			this.requireRowLevelSecurity = requireRowLevelSecurity;
		}

	}

	/** Reconciliation settings. */
	public static class Reconciliation {

		/**
		 * Whether the reconciliation runs on a schedule (it can always be run on demand through the
		 * {@code Reconciler} bean). Default {@code false}: it reads every tenant table of every shard.
		 */
		private boolean enabled = false;

		/** Time between the end of one scheduled run and the start of the next. Default 1 h. */
		private Duration interval = Duration.ofHours(1);

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public Duration getInterval() {
			return this.interval;
		}

		public void setInterval(Duration interval) {
			this.interval = interval;
		}

	}

	/** Settings of every shard pool the starter builds. */
	public static class Pool {

		/**
		 * How long a borrower waits for a connection of a shard pool before failing (HikariCP
		 * {@code connectionTimeout}), at least 250 ms. Applies to the pools of the configured shards (unless
		 * {@code shard-tenancy.shards.<id>.connection-timeout} is set) and to the pools of shards registered by other
		 * instances, which this instance builds when it meets them (the auto-configured {@code ShardConnector}); not to
		 * a pool built from the {@code HikariConfig} an application passes to {@code ShardRegistry.register}. Each
		 * attempt of the automatic retry can wait this long when a shard is down, so keep it short. Default 5 s
		 * (HikariCP's own default is 30 s).
		 */
		private Duration connectionTimeout = Duration.ofSeconds(5);

		public Duration getConnectionTimeout() {
			return this.connectionTimeout;
		}

		public void setConnectionTimeout(Duration connectionTimeout) {
			this.connectionTimeout = connectionTimeout;
		}

	}

}
