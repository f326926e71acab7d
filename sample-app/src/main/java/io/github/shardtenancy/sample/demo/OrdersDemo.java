package io.github.shardtenancy.sample.demo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;

import io.github.shardtenancy.HibernateTenantTables;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.RouterSettings;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.ShardTenancyBuilder;
import io.github.shardtenancy.ShardTopology;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.TenantMover;
import io.github.shardtenancy.TenantRouter;
import io.github.shardtenancy.TenantTable;
import jakarta.persistence.EntityManagerFactory;
import org.hibernate.SessionFactory;
import io.github.shardtenancy.sample.orders.OrderService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * The demo ({@code --demo}): concurrent writers place orders for random tenants while a mover moves random tenants
 * back and forth between shards; afterwards every shard is read directly and compared with what the writers saw
 * committed.
 *
 * <p>The mover is the {@link TenantMover} (mark, copy, catch up, freeze, final catch-up, verify, flip, clean) of a
 * second {@link ShardTenancy} built with {@link ShardTenancy#builder()} on the application's pools, playing a second
 * application instance: it keeps its own router on the same directory (own cache, a sync interval of minutes) up to
 * date instead of the application's. The application's router therefore
 * learns of a move only at its next background sync or when the source's fence rejects a transaction routed with the
 * stale entry: the rejection the library retries, after invalidating that one entry. The source rows of a move are
 * cleaned one second after its flip, so that transactions which began on the source before the flip can finish
 * reading.
 *
 * <p>Counting is done by instrumentation, not inferred: the {@link RetryObserver} (a Spring {@code RetryListener} the
 * library calls) sees every attempt and retry; the transactional body counts its runs; an order id is recorded only
 * after the call returned, that is after its commit. Not thread-safe: run one demo at a time.
 *
 * <p>The parts: {@code DemoWriters} (the writer loop), {@code DemoMover} (the mover loop, with the hook
 * {@code MoveStepTimes}), {@code RunRecord} (what both saw), {@code ShardCheck} (the shards read after the run) and
 * {@code StaleRouteNarration} (one retried call told step by step).
 */
@Component
public class OrdersDemo {

	/** How much longer than its duration a run may go on to see one move and one stale route retried to a commit. */
	static final Duration OVERTIME = Duration.ofSeconds(60);

	/** Fence rejection reasons that mean the route was stale (as opposed to FROZEN: the tenant is moving now). */
	static final Set<String> STALE_REASONS = Set.of("MOVED", "STALE", "NOT_OWNED");

	private static final Logger log = LoggerFactory.getLogger(OrdersDemo.class);

	private final DemoProperties properties;

	private final ShardTenancy tenancy;

	private final TenantAdmin directory;

	private final ShardTopology topology;

	private final TenantRouter router;

	private final DemoOrderWriter writer;

	private final RetryObserver observer;

	private final OrderService orders;

	private final TenantMover moveLog;

	private final EntityManagerFactory entityManagerFactory;

	private final MoveSettings moveSettings;

	/**
	 * @param properties the demo settings
	 * @param tenancy the application's tenancy: its directory, shards (whose pools the mover's instance shares) and
	 * router, used by the writers through Hibernate
	 * @param writer the transactional writer
	 * @param observer the retry listener
	 * @param orders finds each tenant's customer before the run
	 * @param entityManagerFactory the tenant tables the mover's instance moves are discovered from its metamodel
	 * @param moveSettings the auto-configured move settings ({@code shard-tenancy.move.*})
	 */
	public OrdersDemo(DemoProperties properties, ShardTenancy tenancy, DemoOrderWriter writer,
			RetryObserver observer, OrderService orders, EntityManagerFactory entityManagerFactory,
			MoveSettings moveSettings) {
		this.properties = properties;
		this.tenancy = tenancy;
		this.directory = tenancy.admin();
		this.topology = tenancy.topology();
		this.router = tenancy.router();
		this.moveLog = tenancy.mover();
		this.writer = writer;
		this.observer = observer;
		this.orders = orders;
		this.entityManagerFactory = entityManagerFactory;
		this.moveSettings = moveSettings;
	}

	/**
	 * @param steps the hook recording each move's steps
	 * @return a second instance on the application's directory and shard pools (left open when it closes), with a
	 * router of its own that syncs every {@link DemoProperties#moverSyncInterval()}; not started
	 */
	private ShardTenancy moverInstance(MoveStepTimes steps) {
		List<TenantTable> tables = HibernateTenantTables
			.discover(this.entityManagerFactory.unwrap(SessionFactory.class));
		ShardTenancyBuilder builder = ShardTenancy.builder()
			.directory(this.tenancy.directoryDataSource())
			.router(RouterSettings.defaults().withSyncInterval(this.properties.moverSyncInterval()))
			.tenantTables(tables)
			.moveHook(steps)
			.actor("demo-mover")
			.registerShards(false)
			.prepareShardsOnStart(false);
		for (String shardId : this.topology.shardIds().stream().sorted().toList()) {
			builder.shard(shardId, this.topology.dataSource(shardId));
		}
		return builder.build();
	}

	/**
	 * Runs writers and mover for {@link DemoProperties#duration()}, then checks every shard. On a machine so busy that
	 * no move flipped or no stale route was retried to a commit by then, writers and mover go on until both happened
	 * (at most {@link #OVERTIME} longer), so that the run shows what it is for.
	 * @return the report
	 * @throws IllegalStateException if the directory has no tenants or the topology fewer than two shards
	 * @throws InterruptedException if the calling thread is interrupted while waiting for the workers
	 */
	public DemoReport run() throws InterruptedException {
		List<String> tenants = new ArrayList<>();
		this.directory.snapshot(entry -> tenants.add(entry.tenantId()));
		Collections.sort(tenants);
		List<String> shards = this.topology.shardIds().stream().sorted().toList();
		if (tenants.isEmpty() || shards.size() < 2) {
			throw new IllegalStateException("The demo needs tenants and at least two shards; found " + tenants.size()
					+ " tenants on shards " + shards);
		}
		Map<String, UUID> customers = new HashMap<>();
		for (String tenant : tenants) {
			try (TenantContext.Scope scope = TenantContext.bind(tenant)) {
				customers.put(tenant, this.orders.firstCustomerId());
			}
		}
		this.observer.reset();
		RunRecord run = new RunRecord(tenants, shards, customers);
		log.info("Demo: {} writers, {} tenants, shards {}, for {}", this.properties.writers(), tenants.size(), shards,
				this.properties.duration());
		long started = System.nanoTime();
		long end = started + this.properties.duration().toNanos();
		long hardEnd = end + OVERTIME.toNanos();
		BooleanSupplier running = () -> {
			long now = System.nanoTime();
			return now < end || (now < hardEnd && (run.moves.isEmpty() || run.staleRetriedToSuccess.sum() == 0));
		};
		MoveStepTimes steps = new MoveStepTimes(this.moveLog);
		try (ShardTenancy moverInstance = moverInstance(steps)) {
			moverInstance.start();
			DemoMover mover = new DemoMover(this.directory, moverInstance.mover(),
					this.moveSettings.withCleanDelay(Duration.ofSeconds(1)), steps, this.properties.movePause());
			DemoWriters writers = new DemoWriters(this.writer, this.observer, this.properties.writerPause());
			AtomicInteger threadNumber = new AtomicInteger();
			ExecutorService pool = Executors.newFixedThreadPool(this.properties.writers() + 1,
					r -> new Thread(r, "demo-" + threadNumber.incrementAndGet()));
			try {
				List<Future<?>> workers = new ArrayList<>();
				for (int i = 0; i < this.properties.writers(); i++) {
					workers.add(pool.submit(() -> writers.write(run, running)));
				}
				Future<?> moverTask = pool.submit(() -> mover.move(run, running));
				for (Future<?> worker : workers) {
					awaitWorker(worker, run.untypedFailures, run);
				}
				awaitWorker(moverTask, run.moverUntypedFailures, run);
			}
			finally {
				pool.shutdownNow();
			}
		}
		Duration elapsed = Duration.ofNanos(System.nanoTime() - started);
		ShardCheck shardCheck = new ShardCheck(this.directory, this.topology);
		List<DemoReport.TenantCheck> checks = new ArrayList<>();
		Map<UUID, String> ownerOfCommitted = new HashMap<>();
		for (String tenant : tenants) {
			checks.add(shardCheck.check(tenant, shards, run.committed.get(tenant), ownerOfCommitted));
		}
		String narration = StaleRouteNarration.narrate(run.narrated.get(), run.moves, ownerOfCommitted);
		SortedMap<Integer, Long> histogram = new TreeMap<>();
		run.histogram.forEach((attempts, calls) -> histogram.put(attempts, calls.sum()));
		return new DemoReport(elapsed, this.properties.writers(), shards, run.attempted.sum(), run.committedCalls.sum(),
				Map.copyOf(run.typedFailures.entrySet()
					.stream()
					.collect(java.util.stream.Collectors.toMap(Map.Entry::getKey, e -> e.getValue().sum()))),
				run.untypedFailures.sum(), List.copyOf(run.untypedExamples), run.bodyRuns.sum(),
				this.observer.executions(), this.observer.retries(), this.observer.rejectionsByReason(),
				this.observer.serializationFailures(), this.observer.otherFailures(), run.staleRetriedToSuccess.sum(),
				histogram, List.copyOf(run.moves), List.copyOf(run.moveFailures), run.moverUntypedFailures.sum(),
				this.router.stats(), checks, narration, List.copyOf(run.moveSteps));
	}

	private static void awaitWorker(Future<?> worker, LongAdder untyped, RunRecord run) throws InterruptedException {
		try {
			worker.get();
		}
		catch (ExecutionException ex) {
			run.untyped(untyped, "worker thread", ex.getCause());
		}
	}

}
