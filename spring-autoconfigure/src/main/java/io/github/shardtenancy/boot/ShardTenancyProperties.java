package io.github.shardtenancy.boot;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.zaxxer.hikari.HikariConfig;
import io.github.shardtenancy.DirectoryDownPolicy;
import io.github.shardtenancy.UnreachableShardPolicy;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;

/**
 * Settings of the shard tenancy auto-configuration, bound from {@code shard-tenancy.*}.
 *
 * <p>A plain mutable bean, populated once by Spring Boot's binder at start-up; not meant to be changed afterwards, and
 * not thread-safe for writes. Numeric settings are checked once bound: a value out of range fails the start with a
 * {@link io.github.shardtenancy.ShardTenancyConfigurationException} naming the property and the value.
 */
@ConfigurationProperties(prefix = "shard-tenancy", ignoreUnknownFields = false)
public class ShardTenancyProperties implements InitializingBean {

	/** Whether the auto-configuration is active at all. Default {@code true}. */
	private boolean enabled = true;

	/** The directory database (tenant to shard placements). Its {@code url} is required. */
	private final Directory directory = new Directory();

	/**
	 * The shards, by logical shard id (1 to 64 letters, digits, {@code . _ -}, starting with a letter or digit). At
	 * least one is required. Default: none.
	 */
	private final Map<String, ShardProperties> shards = new LinkedHashMap<>();

	/** The router's cache of directory entries. */
	private final Cache cache = new Cache();

	/** The router's background directory sync. */
	@NestedConfigurationProperty
	private final SyncProperties sync = new SyncProperties();

	/**
	 * What routing does while the directory is unreachable: {@code serve-from-cache} (cached ACTIVE entries keep
	 * routing) or {@code fail-closed} (every lookup fails). Default {@code serve-from-cache}.
	 */
	private DirectoryDownPolicy directoryDownPolicy = DirectoryDownPolicy.SERVE_FROM_CACHE;

	/**
	 * What the start does with a configured shard that cannot be reached: {@code fail} (the start fails, naming the
	 * shard's URL property) or {@code start-without} (the application starts without it, its tenants' work fails
	 * with ShardUnavailableException, and it is tried again in the background; once it answers it is migrated,
	 * prepared and serves its tenants). At least one shard must answer.
	 */
	private UnreachableShardPolicy unreachableShardPolicy = UnreachableShardPolicy.FAIL;

	/** Time between tries of a shard that could not be reached at start-up, with start-without. */
	private Duration unreachableShardRetryInterval = Duration.ofSeconds(10);

	/** Automatic retry of transactions rejected by the shard fence. */
	@NestedConfigurationProperty
	private final RetryProperties retry = new RetryProperties();

	/** Liquibase migrations of the directory and of every shard at start-up. */
	private final Liquibase liquibase = new Liquibase();

	/**
	 * The tables holding tenant rows, each as {@code table:column} (the column holding the tenant id). They are what
	 * a move copies and what the fence write check guards. Default: empty, meaning discovered from the Hibernate
	 * metamodel (every entity with an {@code @org.hibernate.annotations.TenantId} attribute, and the collection tables
	 * of such entities that have the same tenant column).
	 */
	private List<String> tenantTables = new ArrayList<>();

	/**
	 * Tables holding the same rows on every shard (lookup data every tenant reads), readable with no tenant bound and
	 * written through the ReferenceTables bean, in addition to the tables of the entities annotated
	 * {@code @io.github.shardtenancy.ReferenceData}. Default: empty.
	 */
	private List<String> referenceTables = new ArrayList<>();

	/**
	 * Tenants created at start-up when the directory does not have them yet, placed by the placement policy and seeded
	 * as TenantAdmin.create does, for example demonstration or development tenants; a tenant that exists is left alone.
	 * Default: none.
	 */
	private List<String> initialTenants = new ArrayList<>();

	/** The HTTP header carrying the tenant of a request. */
	private final Web web = new Web();

	/** Tenant moves. */
	@NestedConfigurationProperty
	private final MoveProperties move = new MoveProperties();

	/**
	 * Who is recorded in the directory history for the changes this application makes (creates, moves). Default
	 * {@code "app@" + the local host name}.
	 */
	private String actor;

	/** Tenant lifecycle: placement of new tenants and the shard registry. */
	@NestedConfigurationProperty
	private final LifecycleProperties lifecycle = new LifecycleProperties();

	/** The reconciliation job comparing the directory with the rows on the shards. */
	private final Reconciliation reconciliation = new Reconciliation();

	/** Settings of every shard pool the starter builds. */
	private final Pool pool = new Pool();

	/** What the shard fence enforces beyond its write checks (PostgreSQL shards). */
	@NestedConfigurationProperty
	private final FenceProperties fence = new FenceProperties();

	/** Which tool migrates the directory and the shards. */
	@NestedConfigurationProperty
	private final MigrationsProperties migrations = new MigrationsProperties();

	/** The directory and the shards on one embedded PostgreSQL server, for local development. */
	@NestedConfigurationProperty
	private final EmbeddedPostgresProperties embeddedPostgres = new EmbeddedPostgresProperties();

	/** Flyway migrations of the directory and of every shard at start-up. */
	@NestedConfigurationProperty
	private final FlywayProperties flyway = new FlywayProperties();

	/** The per-second timeline of the {@code shardtenancy} Actuator endpoint. */
	@NestedConfigurationProperty
	private final TimelineProperties timeline = new TimelineProperties();

	/** Micrometer Observation settings (spans and timers of retried work, attempts and move steps). */
	@NestedConfigurationProperty
	private final ObservationProperties observations = new ObservationProperties();

	/** The SQL scripts that seed a new tenant's data on its shard. */
	@NestedConfigurationProperty
	private final SeedProperties seed = new SeedProperties();

	/** {@code @ShardSafeId} ids and the start-up check of tenant entities' id strategies. */
	@NestedConfigurationProperty
	private final IdsProperties ids = new IdsProperties();

	/** The start-up check that every entity is tenant data or reference data. */
	@NestedConfigurationProperty
	private final EntitiesProperties entities = new EntitiesProperties();

	/** The start-up check of the shards' roles. */
	@NestedConfigurationProperty
	private final TenancySecurityProperties security = new TenancySecurityProperties();

	/** The instance heartbeat: the directory version each instance has applied, and the version skew among them. */
	@NestedConfigurationProperty
	private final InstancesProperties instances = new InstancesProperties();

	/** The dual read of moving tenants: chosen queries compared on source and target while a tenant moves. */
	@NestedConfigurationProperty
	private final DualReadProperties dualRead = new DualReadProperties();

	/** The load figures: this instance's traffic per tenant, their metrics, the hot-tenant report. */
	@NestedConfigurationProperty
	private final LoadProperties load = new LoadProperties();

	/** The rebalancer: moves that bring every shard within a band of the median load. */
	@NestedConfigurationProperty
	private final RebalancerProperties rebalancer = new RebalancerProperties();

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

	public Map<String, ShardProperties> getShards() {
		return this.shards;
	}

	public Cache getCache() {
		return this.cache;
	}

	public SyncProperties getSync() {
		return this.sync;
	}

	public DirectoryDownPolicy getDirectoryDownPolicy() {
		return this.directoryDownPolicy;
	}

	public void setDirectoryDownPolicy(DirectoryDownPolicy directoryDownPolicy) {
		this.directoryDownPolicy = directoryDownPolicy;
	}

	public UnreachableShardPolicy getUnreachableShardPolicy() {
		return this.unreachableShardPolicy;
	}

	public void setUnreachableShardPolicy(UnreachableShardPolicy unreachableShardPolicy) {
		this.unreachableShardPolicy = unreachableShardPolicy;
	}

	public Duration getUnreachableShardRetryInterval() {
		return this.unreachableShardRetryInterval;
	}

	public void setUnreachableShardRetryInterval(Duration unreachableShardRetryInterval) {
		this.unreachableShardRetryInterval = unreachableShardRetryInterval;
	}

	public RetryProperties getRetry() {
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

	public List<String> getReferenceTables() {
		return this.referenceTables;
	}

	public void setReferenceTables(List<String> referenceTables) {
		this.referenceTables = referenceTables;
	}

	public List<String> getInitialTenants() {
		return this.initialTenants;
	}

	public void setInitialTenants(List<String> initialTenants) {
		this.initialTenants = initialTenants;
	}

	public Web getWeb() {
		return this.web;
	}

	public MoveProperties getMove() {
		return this.move;
	}

	public LifecycleProperties getLifecycle() {
		return this.lifecycle;
	}

	public Reconciliation getReconciliation() {
		return this.reconciliation;
	}

	public Pool getPool() {
		return this.pool;
	}

	public FenceProperties getFence() {
		return this.fence;
	}

	public EmbeddedPostgresProperties getEmbeddedPostgres() {
		return this.embeddedPostgres;
	}

	public MigrationsProperties getMigrations() {
		return this.migrations;
	}

	public FlywayProperties getFlyway() {
		return this.flyway;
	}

	public TimelineProperties getTimeline() {
		return this.timeline;
	}

	public ObservationProperties getObservations() {
		return this.observations;
	}

	public SeedProperties getSeed() {
		return this.seed;
	}

	public IdsProperties getIds() {
		return this.ids;
	}

	public EntitiesProperties getEntities() {
		return this.entities;
	}

	public TenancySecurityProperties getSecurity() {
		return this.security;
	}

	public InstancesProperties getInstances() {
		return this.instances;
	}

	public DualReadProperties getDualRead() {
		return this.dualRead;
	}

	public LoadProperties getLoad() {
		return this.load;
	}

	public RebalancerProperties getRebalancer() {
		return this.rebalancer;
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

		/**
		 * Any HikariCP setting of the directory's pool, bound as {@code spring.datasource.hikari.*} is; it wins over
		 * the settings above. Default: HikariCP's, except those above.
		 */
		@NestedConfigurationProperty
		private final HikariConfig hikari = new HikariConfig();

		public HikariConfig getHikari() {
			return this.hikari;
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

	/** Where a request's tenant is read from (shard-tenancy.web.resolvers). */
	public enum WebResolver {

		/** The request header shard-tenancy.web.header-name. */
		HEADER,

		/** A path segment, shard-tenancy.web.path-pattern. */
		PATH,

		/** The sub-domain below shard-tenancy.web.base-domain. */
		SUBDOMAIN,

		/** The HTTP session attribute shard-tenancy.web.session-attribute, stored once resolved. */
		SESSION,

		/** The name of the principal authenticated by Spring Security. */
		PRINCIPAL,

		/** The claim shard-tenancy.web.jwt-claim of the authenticated JWT or OAuth 2 principal. */
		JWT_CLAIM

	}

	/** Who decides whether the authenticated principal may act for a request's tenant (shard-tenancy.web.access.policy). */
	public enum WebAccessPolicy {

		/** The claim shard-tenancy.web.access.claim of a JWT or OAuth 2 principal, else TENANT_ authorities. */
		CLAIM,

		/** The application's TenantGrants bean. */
		LOOKUP,

		/** No check: every authenticated principal may act for the tenant its request names. */
		NONE

	}

	/** The tenant of an HTTP request. */
	public static class Web {

		/**
		 * Whether a servlet filter binds the tenant a request names (see resolvers) for the request. Default
		 * {@code true}.
		 */
		private boolean enabled = true;

		/**
		 * Comma-separated list of the sources of a request's tenant, all asked in this order; those that name a
		 * tenant must name the same one. Ignored when the application defines TenantResolver beans. Default
		 * {@code header}.
		 */
		private List<WebResolver> resolvers = new ArrayList<>(List.of(WebResolver.HEADER));

		/** The request header naming the tenant (resolver header). Default {@code X-Tenant-Id}. */
		private String headerName = "X-Tenant-Id";

		/**
		 * Path pattern with a {tenant} variable matched against the request path (resolver path). Default
		 * {@code /t/{tenant}/**}.
		 */
		private String pathPattern = "/t/{tenant}/**";

		/**
		 * Domain whose sub-domains name tenants, e.g. example.com for acme.example.com (resolver subdomain; required
		 * with it).
		 */
		private String baseDomain;

		/**
		 * HTTP session attribute holding the request's tenant, stored once resolved (resolver session). Default
		 * {@code shard-tenancy.tenant}.
		 */
		private String sessionAttribute = "shard-tenancy.tenant";

		/**
		 * Claim of the authenticated JWT or OAuth 2 principal naming the tenant (resolver jwt-claim). Default
		 * {@code tenant}.
		 */
		private String jwtClaim = "tenant";

		/** The HTTP answers to the library's typed errors. */
		private final ProblemDetails problemDetails = new ProblemDetails();

		/** Whether the authenticated principal may act for the tenant a request resolves to. */
		private final Access access = new Access();

		public Access getAccess() {
			return this.access;
		}

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

		public List<WebResolver> getResolvers() {
			return this.resolvers;
		}

		public void setResolvers(List<WebResolver> resolvers) {
			this.resolvers = resolvers;
		}

		public String getPathPattern() {
			return this.pathPattern;
		}

		public void setPathPattern(String pathPattern) {
			this.pathPattern = pathPattern;
		}

		public String getBaseDomain() {
			return this.baseDomain;
		}

		public void setBaseDomain(String baseDomain) {
			this.baseDomain = baseDomain;
		}

		public String getSessionAttribute() {
			return this.sessionAttribute;
		}

		public void setSessionAttribute(String sessionAttribute) {
			this.sessionAttribute = sessionAttribute;
		}

		public String getJwtClaim() {
			return this.jwtClaim;
		}

		public void setJwtClaim(String jwtClaim) {
			this.jwtClaim = jwtClaim;
		}

		public ProblemDetails getProblemDetails() {
			return this.problemDetails;
		}

	}

	/** Whether the authenticated principal may act for the tenant a request resolves to. */
	public static class Access {

		/**
		 * Policy deciding whether the principal authenticated by Spring Security may act for the tenant a request
		 * resolves to; a refused request is answered 403. With Spring Security on the class path and a resolver that
		 * does not read the authenticated user (header, path, subdomain, session), the application fails to start
		 * without a policy: set claim, lookup, none (no check), or define a TenantAccessPolicy or TenantGrants bean.
		 * Default: the application's TenantGrants bean if there is one.
		 */
		private WebAccessPolicy policy;

		/**
		 * Claim of the authenticated JWT or OAuth 2 principal listing the tenants it may act for, as an array or a
		 * string separated by spaces or commas (policy claim). Default {@code tenants}.
		 */
		private String claim = "tenants";

		/**
		 * Prefix of the granted authorities naming a tenant a principal without claims may act for, e.g. TENANT_acme
		 * (policy claim). Default {@code TENANT_}.
		 */
		private String authorityPrefix = "TENANT_";

		public WebAccessPolicy getPolicy() {
			return this.policy;
		}

		public void setPolicy(WebAccessPolicy policy) {
			this.policy = policy;
		}

		public String getClaim() {
			return this.claim;
		}

		public void setClaim(String claim) {
			this.claim = claim;
		}

		public String getAuthorityPrefix() {
			return this.authorityPrefix;
		}

		public void setAuthorityPrefix(String authorityPrefix) {
			this.authorityPrefix = authorityPrefix;
		}

	}

	/** The HTTP answers (RFC 9457 problem details) to the library's typed errors. */
	public static class ProblemDetails {

		/**
		 * Whether the library's typed errors are answered with RFC 9457 problem details (400, 404, 409, 503). Default
		 * {@code true}.
		 */
		private boolean enabled = true;

		/** Time a client is told to wait before retrying a 503 answer, sent rounded up to whole seconds. Default 1 s. */
		private Duration retryAfter = Duration.ofSeconds(1);

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public Duration getRetryAfter() {
			return this.retryAfter;
		}

		public void setRetryAfter(Duration retryAfter) {
			this.retryAfter = retryAfter;
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
		 * instances, which this instance builds when it meets them (the auto-configured {@code ShardPoolFactory}); not to
		 * a pool built from the {@code HikariConfig} an application passes to {@code ShardRegistry.register}. Each
		 * attempt of the automatic retry can wait this long when a shard is down, so keep it short. Default 5 s
		 * (HikariCP's own default is 30 s).
		 */
		private Duration connectionTimeout = Duration.ofSeconds(5);

		/**
		 * Any HikariCP setting of every shard pool the starter builds, bound as {@code spring.datasource.hikari.*} is
		 * (durations in milliseconds). It wins over {@code connection-timeout} above and loses to a shard's own
		 * settings ({@code shard-tenancy.shards.<id>.*} and {@code shard-tenancy.shards.<id>.hikari.*}); its
		 * {@code pool-name} cannot be set (each pool is named {@code shard-<id>}). Default: HikariCP's, except the
		 * connection timeout.
		 */
		@NestedConfigurationProperty
		private final HikariConfig hikari = new HikariConfig();

		public HikariConfig getHikari() {
			return this.hikari;
		}

		public Duration getConnectionTimeout() {
			return this.connectionTimeout;
		}

		public void setConnectionTimeout(Duration connectionTimeout) {
			this.connectionTimeout = connectionTimeout;
		}

	}

	/** Routing of read-only transactions to the shards' read replicas. */
	@NestedConfigurationProperty
	private final ReplicaRoutingProperties replicas = new ReplicaRoutingProperties();

	public ReplicaRoutingProperties getReplicas() {
		return this.replicas;
	}

}
