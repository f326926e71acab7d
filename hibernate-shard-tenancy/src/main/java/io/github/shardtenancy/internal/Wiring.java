package io.github.shardtenancy.internal;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.MoveStatus;
import io.github.shardtenancy.ReconciliationReport;
import io.github.shardtenancy.ReplicaSettings;
import io.github.shardtenancy.ShardTenancyConfigurationException;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.TenantTable;
import io.github.shardtenancy.internal.directory.Directory;
import io.github.shardtenancy.internal.hibernate.EntityTenancy;
import io.github.shardtenancy.internal.hibernate.ShardMultiTenantConnectionProvider;
import io.github.shardtenancy.internal.ids.ShardIds;
import io.github.shardtenancy.internal.instances.InstanceHeartbeat;
import io.github.shardtenancy.internal.hibernate.TenantIdentifierResolver;
import io.github.shardtenancy.internal.hibernate.TenantRoutingDataSource;
import io.github.shardtenancy.internal.lifecycle.ShardPreparation;
import io.github.shardtenancy.internal.lifecycle.TenantAdministration;
import io.github.shardtenancy.internal.lifecycle.TenantLifecycle;
import io.github.shardtenancy.internal.lifecycle.TenantSeeding;
import io.github.shardtenancy.internal.move.MoveExecutor;
import io.github.shardtenancy.internal.move.Mover;
import io.github.shardtenancy.internal.move.ShadowReads;
import io.github.shardtenancy.internal.placement.ShardPlacement;
import io.github.shardtenancy.internal.placement.SlotMap;
import io.github.shardtenancy.internal.reconcile.Reconciler;
import io.github.shardtenancy.internal.reference.ReferenceReplication;
import io.github.shardtenancy.internal.routing.Router;
import io.github.shardtenancy.internal.topology.ReplicaLagSampler;
import io.github.shardtenancy.internal.topology.ShardRegistry;
import io.github.shardtenancy.internal.tasks.DefaultTenantTasks;
import io.github.shardtenancy.internal.topology.Topology;
import io.github.shardtenancy.spi.BackgroundScheduler;
import io.github.shardtenancy.spi.ShardTenancyObserver;
import io.github.shardtenancy.spi.TenancyPlan;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The implementation behind {@code ShardTenancy}: the directory, topology, router, Hibernate integration, shard
 * registry, slot map, mover, lifecycle, reconciler and the preparation of shards, wired from a {@link TenancyPlan}. The
 * mover, the lifecycle and the reconciler are created on first use, since they need the tenant tables, which may be
 * known only once a Hibernate session factory exists. Thread-safe.
 */
public final class Wiring implements AutoCloseable {

	private static final Logger log = LoggerFactory.getLogger(Wiring.class);

	private final TenancyPlan plan;

	private final Directory directory;

	private final Topology topology;

	private final Router router;

	private final ShardMultiTenantConnectionProvider connectionProvider;

	private final ShardIds ids;

	private final TenantIdentifierResolver tenantResolver = new TenantIdentifierResolver();

	private final TenantRoutingDataSource dataSource;

	private final ShardRegistry registry;

	private final SlotMap slots;

	private final ShardPreparation preparation;

	private final @Nullable MoveExecutor ownedExecutor;

	private final Executor executor;

	private final TenantAdministration admin;

	private final ShardTenancyObserver observer;

	private final ReferenceReplication reference;

	private final InstanceHeartbeat instances;

	private final io.github.shardtenancy.internal.load.DefaultTenantLoads load;

	private final io.github.shardtenancy.internal.load.DefaultRebalancer rebalancer;

	private @Nullable List<TenantTable> tables;

	private @Nullable Mover mover;

	private final ShadowReads dualRead;

	private @Nullable TenantLifecycle lifecycle;

	private @Nullable Reconciler reconciler;

	private @Nullable ReplicaLagSampler replicaSampler;

	private final PendingShards pendingShards;

	private @Nullable Future<?> replicaSampling;

	private @Nullable ScheduledExecutorService replicaScheduler;

	/**
	 * Wires everything; touches no database.
	 * @param plan what the builder collected; the directory pool must be set
	 * @param topology the plan's shards, added
	 */
	public Wiring(TenancyPlan plan, Topology topology) {
		this.plan = plan;
		this.directory = new Directory(Objects.requireNonNull(plan.directoryDataSource, "directoryDataSource"));
		this.topology = topology;
		this.router = new Router(this.directory, plan.routerSettings, plan.backgroundScheduler);
		plan.observers.forEach(this.router::addObserver);
		this.observer = new RouterObservers(this.router);
		this.ids = new ShardIds(this.directory.dataSource(), this.topology, plan.idSettings, plan.idCheck,
				Clock.systemUTC(), plan.backgroundScheduler, plan.actor);
		this.connectionProvider = new ShardMultiTenantConnectionProvider(this.router, this.topology, this.ids);
		this.dataSource = new TenantRoutingDataSource(this.connectionProvider);
		this.preparation = new ShardPreparation(this::tables, plan.rowLevelSecurity, plan.requireRowLevelSecurity,
				plan.strictSecurity, plan.installCapture, plan.idCheck);
		this.registry = new ShardRegistry(this.directory, this.topology, (shardId, shardDataSource, dialect) ->
				migrateAndPrepare(new Topology.Shard(shardId, shardDataSource, dialect, false)),
				plan.shardPoolFactory, plan.actor);
		this.pendingShards = new PendingShards(this.topology, this::migrateAndPrepare, this::adoptArrived);
		this.reference = new ReferenceReplication(this.directory, this.topology, plan.referenceTables, plan.actor);
		this.connectionProvider.setReferenceReads(this.reference);
		this.preparation.referenceRole(plan.referenceRole, this.reference::tables,
				this.connectionProvider::setReferenceRole);
		this.preparation.owners(plan.shardOwners);
		this.connectionProvider.setEntityTenancy(new EntityTenancy(plan.entityCheck, plan.declaredReferenceTables));
		for (TenancyPlan.ReplicaPool replica : plan.replicas) {
			this.topology.addReplica(replica.shardId(), replica.name(), replica.config());
		}
		this.connectionProvider.setReplicaSettings(plan.replicaSettings);
		this.registry.setRegistrationHook(this.reference::registering);
		this.slots = new SlotMap(this.directory);
		this.instances = new InstanceHeartbeat(this.directory.dataSource(), plan.instanceSettings,
				this.router::version, plan.backgroundScheduler);
		this.ownedExecutor = plan.moveExecutor == null ? new MoveExecutor() : null;
		this.executor = plan.moveExecutor != null ? plan.moveExecutor : this.ownedExecutor.executor();
		this.dualRead = new ShadowReads(this.router, this.topology, plan.dualReadSettings,
				tenantId -> mover().findActive(tenantId));
		io.github.shardtenancy.internal.load.LoadRecorder recorder = plan.loadTracking
				? new io.github.shardtenancy.internal.load.LoadRecorder(plan.loadWindow, plan.loadMaxTenants,
						System::nanoTime)
				: null;
		this.connectionProvider.setUsageSink(recorder);
		this.load = new io.github.shardtenancy.internal.load.DefaultTenantLoads(this.directory, this.topology,
				this::tables, recorder);
		this.rebalancer = new io.github.shardtenancy.internal.load.DefaultRebalancer(this.load, this.directory,
				this::mover);
		this.admin = new TenantAdministration(this.directory, this.topology, this.registry, this.slots,
				this::lifecycle, this::mover,
				plan.moveSettings.withCapture(false).withCleanDelay(plan.stopTheWorldCleanDelay), plan.actor);
	}

	/**
	 * Starts the router (one directory snapshot), loads the slot table, records the configured shards in the registry
	 * (a shard that cannot be recorded, for example a retired one, is logged and skipped), unless switched off prepares
	 * every shard, raises the Integer id counters of the directory above the ids already on the shards (failures are
	 * logged: each is raised before its first id), and starts the instance heartbeat (its failures are logged, not
	 * thrown).
	 */
	public synchronized void start() {
		this.router.start();
		this.slots.load();
		if (this.plan.registerShards) {
			for (TenancyPlan.Shard shard : this.plan.shards) {
				if (!this.topology.contains(shard.shardId())) {
					continue;
				}
				try {
					this.registry.adopt(shard.shardId(), shard.region(), shard.jdbcUrl(), shard.username());
				}
				catch (RuntimeException ex) {
					log.warn("Configured shard '{}' is not eligible for placement: {}", shard.shardId(),
							ex.getMessage());
				}
			}
		}
		if (this.plan.registerShards) {
			for (TenancyPlan.ReplicaPool replica : this.plan.replicas) {
				try {
					this.registry.recordReplica(replica.shardId(), replica.name(), replica.config().getJdbcUrl(),
							replica.config().getUsername());
				}
				catch (RuntimeException ex) {
					log.warn("Replica '{}' of shard '{}' is not recorded for other instances: {}", replica.name(),
							replica.shardId(), ex.getMessage());
				}
			}
		}
		if (this.plan.prepareShardsOnStart) {
			prepareShards();
		}
		this.ids.raiseFloors();
		this.instances.start();
		startReplicaSampling();
		this.pendingShards.start(this.plan.unreachableShardRetry);
	}

	/**
	 * Migrates a shard that is not routed to yet and prepares it: the Integer id counters raised above the rows it
	 * brings or its changelogs seeded, the fence and capture installed.
	 */
	private void migrateAndPrepare(Topology.Shard shard) {
		DataSource owner = this.plan.shardOwners.apply(shard.id());
		this.plan.shardMigrator.migrate(shard.id(), owner != null ? owner : shard.dataSource(), shard.dialect());
		this.ids.shardMigrated(shard);
		this.preparation.prepare(shard);
	}

	/** Records a configured shard that answered after the start in the registry, as the start does. */
	private void adoptArrived(String shardId) {
		if (!this.plan.registerShards) {
			return;
		}
		for (TenancyPlan.Shard shard : this.plan.shards) {
			if (shard.shardId().equals(shardId)) {
				try {
					this.registry.adopt(shardId, shard.region(), shard.jdbcUrl(), shard.username());
				}
				catch (RuntimeException ex) {
					log.warn("Configured shard '{}' is not eligible for placement: {}", shardId, ex.getMessage());
				}
			}
		}
	}

	/**
	 * Measures the replicas' lag once (so that replicas serve from the start) and then every sample interval, in the
	 * background; only when replica routing is enabled and there are replicas.
	 */
	private void startReplicaSampling() {
		ReplicaSettings settings = this.plan.replicaSettings;
		if (!settings.enabled() || this.replicaSampling != null) {
			return;
		}
		// Positions are kept for twice the maximum lag: a replica behind all of them is far beyond the bound anyway.
		ReplicaLagSampler sampler = new ReplicaLagSampler(this.topology,
				settings.maxLag().multipliedBy(2).plus(settings.sampleInterval()));
		this.replicaSampler = sampler;
		sampler.run();
		BackgroundScheduler background = this.plan.backgroundScheduler;
		if (background == null) {
			ScheduledExecutorService own = Executors.newSingleThreadScheduledExecutor(r -> {
				Thread t = new Thread(r, "shard-tenancy-replica-lag");
				t.setDaemon(true);
				return t;
			});
			this.replicaScheduler = own;
			background = BackgroundScheduler.of(own);
		}
		this.replicaSampling = background.scheduleWithFixedDelay(sampler, settings.sampleInterval(),
				settings.sampleInterval());
	}

	/** @return the replica lag sampler, or {@code null} while replica routing is off or not started */
	public @Nullable ReplicaLagSampler replicaSampler() {
		return this.replicaSampler;
	}

	/** Prepares every shard of the topology; see {@link ShardPreparation}. */
	public void prepareShards() {
		this.preparation.prepareAll(this.topology);
	}

	/**
	 * @return the tenant tables, asked of the plan's supplier once, and, if there are any, the library's completion
	 * marks ({@link DefaultTenantTasks#MARKS})
	 * @throws ShardTenancyConfigurationException if a tenant table is also declared a reference table
	 */
	public synchronized List<TenantTable> tables() {
		if (this.tables == null) {
			List<TenantTable> tenantTables = List.copyOf(Objects.requireNonNull(this.plan.tables.get(),
					"tenant tables"));
			for (TenantTable table : tenantTables) {
				if (this.reference.tables().contains(table.table().toLowerCase(java.util.Locale.ROOT))) {
					throw new ShardTenancyConfigurationException("shard-tenancy.reference-tables", "Table "
							+ table.table() + " is declared both a tenant table (tenant column " + table.tenantColumn()
							+ ") and a reference table; a reference table has no tenant column and is never moved: "
							+ "remove it from one of the two");
				}
			}
			// The library's completion marks move with the tenant, as its other rows (unless declared already;
			// without tenant tables moves are refused, and the marks stay where they are).
			String marks = DefaultTenantTasks.MARKS.table();
			if (!tenantTables.isEmpty() && tenantTables.stream().noneMatch((t) -> t.table().equalsIgnoreCase(marks))) {
				List<TenantTable> withMarks = new ArrayList<>(tenantTables);
				withMarks.add(DefaultTenantTasks.MARKS);
				tenantTables = List.copyOf(withMarks);
			}
			this.tables = tenantTables;
		}
		return this.tables;
	}

	/** @return the mover, created on first use */
	public synchronized Mover mover() {
		if (this.mover == null) {
			this.mover = new Mover(this.directory, this.router, this.topology, tables(), this.plan.actor,
					this.executor)
				.withLease(this.plan.moveLease)
				.withHook(this.plan.moveHook)
				.withDualRead(this.dualRead);
		}
		return this.mover;
	}

	/** @return the lifecycle, created on first use */
	public synchronized TenantLifecycle lifecycle() {
		if (this.lifecycle == null) {
			this.lifecycle = new TenantLifecycle(this.directory, this.router, this.topology, this.registry,
					new ShardPlacement(this.plan.placementPolicy, (id) -> !this.topology.isPending(id)), this.slots, mover(), this.plan.moveSettings, tables(),
					this.plan.actor);
			if (!this.plan.seeders.isEmpty()) {
				this.lifecycle.withSeeding(
						new TenantSeeding(this.plan.seeders, this.dataSource, this.directory, this.plan.actor));
			}
		}
		return this.lifecycle;
	}

	/** @return the reconciler, created on first use */
	public synchronized Reconciler reconciler() {
		if (this.reconciler == null) {
			this.reconciler = new Reconciler(this.directory, this.topology, tables())
				.withReferenceData(this.reference.tables().isEmpty() ? null : this::reconcileReferenceData);
		}
		return this.reconciler;
	}

	/** Replays the reference writes a shard misses (those it can reach), then verifies every shard. */
	private io.github.shardtenancy.ReferenceDataReport reconcileReferenceData() {
		try {
			this.reference.repair();
		}
		catch (io.github.shardtenancy.ReferenceDataBehindException ex) {
			log.warn("Reference data: {}", ex.getMessage());
		}
		return this.reference.verify();
	}

	/** @return the latest reconciliation report; empty before the first run */
	public synchronized Optional<ReconciliationReport> lastReconciliation() {
		return this.reconciler == null ? Optional.empty() : this.reconciler.lastReport();
	}

	/** @return the router's observers, those added now and later, as one */
	public ShardTenancyObserver observer() {
		return this.observer;
	}

	/** @return the reference tables' replication */
	public ReferenceReplication referenceReplication() {
		return this.reference;
	}

	/** @return the directory */
	public Directory directory() {
		return this.directory;
	}

	/** @return the topology */
	public Topology topology() {
		return this.topology;
	}

	/** @return the router */
	public Router router() {
		return this.router;
	}

	/** @return Hibernate's connection provider */
	public ShardMultiTenantConnectionProvider connectionProvider() {
		return this.connectionProvider;
	}

	/** @return Hibernate's tenant resolver */
	public TenantIdentifierResolver tenantResolver() {
		return this.tenantResolver;
	}

	/** @return the {@link io.github.shardtenancy.ShardSafeId} ids (leased on first use) */
	public ShardIds ids() {
		return this.ids;
	}

	/** @return the tenant-routing data source */
	public TenantRoutingDataSource dataSource() {
		return this.dataSource;
	}

	/** @return the shard registry */
	public ShardRegistry registry() {
		return this.registry;
	}

	/** @return the slot map */
	public SlotMap slots() {
		return this.slots;
	}

	/** @return the admin */
	public TenantAdmin admin() {
		return this.admin;
	}

	/** @return the load figures */
	public io.github.shardtenancy.internal.load.DefaultTenantLoads load() {
		return this.load;
	}

	/** @return the rebalancer */
	public io.github.shardtenancy.internal.load.DefaultRebalancer rebalancer() {
		return this.rebalancer;
	}

	/** @return the executor the mover runs on (owned by this wiring unless the plan gave one) */
	public Executor moveExecutor() {
		return this.executor;
	}

	/** @return the instance heartbeat */
	public InstanceHeartbeat instances() {
		return this.instances;
	}

	/** @return the dual read of moving tenants */
	public ShadowReads dualRead() {
		return this.dualRead;
	}

	/** @return the directory database's pool */
	public DataSource directoryDataSource() {
		return this.directory.dataSource();
	}

	/**
	 * Interrupts the moves running on an executor this wiring owns, stops the router, closes the shard pools the
	 * topology created, and the directory pool if it is owned.
	 */
	@Override
	public void close() {
		try {
			this.pendingShards.close();
			this.instances.close();
			this.ids.close();
			this.dualRead.close();
			if (this.replicaSampling != null) {
				this.replicaSampling.cancel(false);
			}
			if (this.replicaScheduler != null) {
				this.replicaScheduler.shutdownNow();
			}
			if (this.ownedExecutor != null) {
				this.ownedExecutor.close();
			}
			this.router.close();
			this.topology.close();
		}
		finally {
			if (this.plan.ownsDirectoryPool && this.directory.dataSource() instanceof HikariDataSource pool) {
				pool.close();
			}
		}
	}

	/** Tells the observers a router has when told, so that observers added later are told too. */
	private record RouterObservers(Router router) implements ShardTenancyObserver {

		@Override
		public void fenceRejected(String shardId, String reason) {
			this.router.observer().fenceRejected(shardId, reason);
		}

		@Override
		public void retried() {
			this.router.observer().retried();
		}

		@Override
		public void retriesExhausted() {
			this.router.observer().retriesExhausted();
		}

		@Override
		public void rerunMismatch(@Nullable String tenantId, String table) {
			this.router.observer().rerunMismatch(tenantId, table);
		}

		@Override
		public void directoryLookup(long nanos, boolean found) {
			this.router.observer().directoryLookup(nanos, found);
		}

		@Override
		public void moveFlipped(String mover, String sourceShardId, String targetShardId, long totalNanos,
				long freezeNanos) {
			this.router.observer().moveFlipped(mover, sourceShardId, targetShardId, totalNanos, freezeNanos);
		}

		@Override
		public void moveStepRecorded(MoveStatus move) {
			this.router.observer().moveStepRecorded(move);
		}

		@Override
		public void dualRead(String name, String outcome, long nanos) {
			this.router.observer().dualRead(name, outcome, nanos);
		}

		@Override
		public Scope retryStarted(String tenantId) {
			return this.router.observer().retryStarted(tenantId);
		}

		@Override
		public Scope attemptStarted(String tenantId, int attempt) {
			return this.router.observer().attemptStarted(tenantId, attempt);
		}

		@Override
		public Scope moveStepStarted(String moveId, String tenantId, String mover, String step, String sourceShardId,
				String targetShardId) {
			return this.router.observer().moveStepStarted(moveId, tenantId, mover, step, sourceShardId, targetShardId);
		}

	}

}
