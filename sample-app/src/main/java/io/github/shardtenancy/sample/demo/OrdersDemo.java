package io.github.shardtenancy.sample.demo;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

import io.github.shardtenancy.ShardTenancyException;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.TenantMover;
import io.github.shardtenancy.admin.MoveResult;
import io.github.shardtenancy.admin.TenantTable;
import io.github.shardtenancy.directory.Directory;
import io.github.shardtenancy.directory.DirectoryEntry;
import io.github.shardtenancy.fence.FenceRejection;
import io.github.shardtenancy.internal.move.Mover;
import io.github.shardtenancy.move.MoveSettings;
import io.github.shardtenancy.move.MoveStep;
import io.github.shardtenancy.routing.RouterSettings;
import io.github.shardtenancy.routing.TenantRouter;
import io.github.shardtenancy.sample.orders.OrderService;
import io.github.shardtenancy.spi.MoveHook;
import io.github.shardtenancy.topology.ShardTopology;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * The demo ({@code --demo}): concurrent writers place orders for random tenants while a mover moves random tenants
 * back and forth between shards; afterwards every shard is read directly and compared with what the writers saw
 * committed.
 *
 * <p>The mover is the auto-configured {@link TenantMover} (mark, copy, catch up, freeze, final catch-up, verify, flip,
 * clean), playing a second application instance: it keeps its own {@link TenantRouter} on the same directory (own
 * cache, a sync interval of minutes) up to date instead of the application's. The application's router therefore
 * learns of a move only at its next background sync or when the source's fence rejects a transaction routed with the
 * stale entry: the rejection the library retries, after invalidating that one entry. The source rows of a move are
 * cleaned one second after its flip, so that transactions which began on the source before the flip can finish
 * reading.
 *
 * <p>Counting is done by instrumentation, not inferred: the {@link RetryObserver} (a Spring {@code RetryListener} the
 * library calls) sees every attempt and retry; the transactional body counts its runs; an order id is recorded only
 * after the call returned, that is after its commit. Not thread-safe: run one demo at a time.
 */
@Component
public class OrdersDemo {

	/** How much longer than its duration a run may go on to see one move and one stale route retried to a commit. */
	static final Duration OVERTIME = Duration.ofSeconds(60);


	/** Fence rejection reasons that mean the route was stale (as opposed to FROZEN: the tenant is moving now). */
	static final Set<String> STALE_REASONS = Set.of("MOVED", "STALE", "NOT_OWNED");

	/** The sample's tenant tables (the ones the entities map), checked on every shard after the run. */
	static final List<TenantTable> TENANT_TABLES = List.of(new TenantTable("customers", "tenant_id"),
			new TenantTable("orders", "tenant_id"), new TenantTable("order_lines", "tenant_id"));

	private static final List<String> PRODUCTS = List.of("widget", "gadget", "sprocket", "gizmo", "doohickey");

	private static final Logger log = LoggerFactory.getLogger(OrdersDemo.class);

	private final DemoProperties properties;

	private final Directory directory;

	private final ShardTopology topology;

	private final TenantRouter router;

	private final DemoOrderWriter writer;

	private final RetryObserver observer;

	private final OrderService orders;

	private final Mover onlineMover;

	private final MoveSettings moveSettings;

	/**
	 * @param properties the demo settings
	 * @param directory the directory (shared with the mover's router)
	 * @param topology the shards
	 * @param router the application's router, used by the writers through Hibernate
	 * @param writer the transactional writer
	 * @param observer the retry listener
	 * @param orders finds each tenant's customer before the run
	 * @param onlineMover the auto-configured mover, a {@link Mover} (the demo points it at a router of its own and
	 * times its steps with a hook)
	 * @param moveSettings the auto-configured move settings ({@code shard-tenancy.move.*})
	 */
	public OrdersDemo(DemoProperties properties, Directory directory, ShardTopology topology, TenantRouter router,
			DemoOrderWriter writer, RetryObserver observer, OrderService orders, TenantMover onlineMover,
			MoveSettings moveSettings) {
		this.properties = properties;
		this.directory = directory;
		this.topology = topology;
		this.router = router;
		this.writer = writer;
		this.observer = observer;
		this.orders = orders;
		if (!(onlineMover instanceof Mover mover)) {
			throw new IllegalStateException("The demo points the mover at a router of its own: it needs the "
					+ "auto-configured mover, not " + onlineMover.getClass().getName());
		}
		this.onlineMover = mover;
		this.moveSettings = moveSettings;
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
		List<String> shards = List.copyOf(this.topology.shardIds());
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
		Run run = new Run(tenants, shards, customers);
		log.info("Demo: {} writers, {} tenants, shards {}, for {}", this.properties.writers(), tenants.size(), shards,
				this.properties.duration());
		long started = System.nanoTime();
		long end = started + this.properties.duration().toNanos();
		long hardEnd = end + OVERTIME.toNanos();
		BooleanSupplier running = () -> {
			long now = System.nanoTime();
			return now < end || (now < hardEnd && (run.moves.isEmpty() || run.staleRetriedToSuccess.sum() == 0));
		};
		try (TenantRouter moverRouter = new TenantRouter(this.directory,
				RouterSettings.defaults().withSyncInterval(this.properties.moverSyncInterval()))) {
			moverRouter.start();
			StepTimes steps = new StepTimes(this.onlineMover);
			Mover mover = this.onlineMover.withRouter(moverRouter).withHook(steps);
			MoveSettings options = this.moveSettings.withCleanDelay(Duration.ofSeconds(1));
			AtomicInteger threadNumber = new AtomicInteger();
			ExecutorService pool = Executors.newFixedThreadPool(this.properties.writers() + 1,
					r -> new Thread(r, "demo-" + threadNumber.incrementAndGet()));
			try {
				List<Future<?>> workers = new ArrayList<>();
				for (int i = 0; i < this.properties.writers(); i++) {
					workers.add(pool.submit(() -> write(run, running)));
				}
				Future<?> moverTask = pool.submit(() -> move(run, mover, options, steps, running));
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
		List<DemoReport.TenantCheck> checks = new ArrayList<>();
		Map<UUID, String> ownerOfCommitted = new HashMap<>();
		for (String tenant : tenants) {
			checks.add(check(tenant, shards, run.committed.get(tenant), ownerOfCommitted));
		}
		String narration = narrate(run.narrated.get(), run.moves, ownerOfCommitted);
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

	/** Shared state of one run; every field is thread-safe. */
	private static final class Run {

		final List<String> tenants;

		final List<String> shards;

		final Map<String, UUID> customers;

		final Map<String, Set<UUID>> committed = new ConcurrentHashMap<>();

		final LongAdder attempted = new LongAdder();

		final LongAdder committedCalls = new LongAdder();

		final LongAdder bodyRuns = new LongAdder();

		final LongAdder untypedFailures = new LongAdder();

		final LongAdder moverUntypedFailures = new LongAdder();

		final LongAdder staleRetriedToSuccess = new LongAdder();

		final Map<String, LongAdder> typedFailures = new ConcurrentHashMap<>();

		final List<String> untypedExamples = Collections.synchronizedList(new ArrayList<>());

		final Map<Integer, LongAdder> histogram = new ConcurrentSkipListMap<>();

		final List<MoveResult> moves = Collections.synchronizedList(new ArrayList<>());

		final List<String> moveFailures = Collections.synchronizedList(new ArrayList<>());

		/** Per move (same order as {@link #moves}): its steps and the time each took. */
		final List<String> moveSteps = Collections.synchronizedList(new ArrayList<>());

		final AtomicReference<CallTrace> narrated = new AtomicReference<>();

		Run(List<String> tenants, List<String> shards, Map<String, UUID> customers) {
			this.tenants = tenants;
			this.shards = shards;
			this.customers = Map.copyOf(customers);
			tenants.forEach(t -> this.committed.put(t, ConcurrentHashMap.newKeySet()));
		}

		void untyped(LongAdder counter, String where, Throwable ex) {
			counter.increment();
			if (this.untypedExamples.size() < 5) {
				this.untypedExamples.add(where + ": " + ex);
			}
			log.error("Untyped failure in {}", where, ex);
		}

	}

	private void write(Run run, BooleanSupplier running) {
		ThreadLocalRandom random = ThreadLocalRandom.current();
		while (running.getAsBoolean()) {
			String tenant = run.tenants.get(random.nextInt(run.tenants.size()));
			String product = PRODUCTS.get(random.nextInt(PRODUCTS.size()));
			int quantity = 1 + random.nextInt(5);
			CallTrace trace = this.observer.begin(tenant);
			AtomicInteger bodyRuns = new AtomicInteger();
			run.attempted.increment();
			try (TenantContext.Scope scope = TenantContext.bind(tenant)) {
				UUID id = this.writer.placeOrder(run.customers.get(tenant), product, quantity, bodyRuns);
				run.committed.get(tenant).add(id);
				run.committedCalls.increment();
				trace.committedId = id;
			}
			catch (ShardTenancyException ex) {
				run.typedFailures.computeIfAbsent(ex.getClass().getSimpleName(), k -> new LongAdder()).increment();
				log.warn("Writer call for tenant '{}' failed: {}", tenant, ex.getMessage());
			}
			catch (RuntimeException ex) {
				run.untyped(run.untypedFailures, "writer call for tenant '" + tenant + "'", ex);
			}
			finally {
				this.observer.end();
			}
			run.bodyRuns.add(bodyRuns.get());
			int attempts = Math.max(1, Math.max(trace.executions, bodyRuns.get()));
			run.histogram.computeIfAbsent(attempts, k -> new LongAdder()).increment();
			if (trace.committedId != null && trace.firstStaleRejection().isPresent()) {
				run.staleRetriedToSuccess.increment();
				run.narrated.compareAndSet(null, trace);
			}
			pause(this.properties.writerPause());
		}
	}

	/**
	 * Moves random tenants while the run lasts, then cleans the sources of the moves still waiting for their clean
	 * delay. A tenant whose last move is not cleaned yet is not moved again (the move log would refuse it).
	 */
	private void move(Run run, Mover mover, MoveSettings options, StepTimes steps, BooleanSupplier running) {
		ThreadLocalRandom random = ThreadLocalRandom.current();
		Map<String, String> uncleaned = new LinkedHashMap<>();
		while (running.getAsBoolean()) {
			clean(run, mover, uncleaned);
			String tenant = run.tenants.get(random.nextInt(run.tenants.size()));
			if (uncleaned.containsKey(tenant)) {
				pause(this.properties.movePause());
				continue;
			}
			try {
				DirectoryEntry entry = this.directory.find(tenant).orElseThrow();
				List<String> others = run.shards.stream().filter(s -> !s.equals(entry.shardId())).toList();
				String target = others.get(random.nextInt(others.size()));
				MoveResult result = mover.moveAndWait(tenant, target, options);
				synchronized (run.moves) {
					run.moves.add(result);
					run.moveSteps.add(steps.describe(result.moveId()));
				}
				if (result.step() == MoveStep.FLIPPED) {
					uncleaned.put(tenant, result.moveId());
				}
			}
			catch (ShardTenancyException ex) {
				run.moveFailures.add(ex.getClass().getSimpleName() + ": " + ex.getMessage());
			}
			catch (RuntimeException ex) {
				run.untyped(run.moverUntypedFailures, "move of tenant '" + tenant + "'", ex);
			}
			pause(this.properties.movePause());
		}
		long cleanDeadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
		while (!uncleaned.isEmpty() && System.nanoTime() < cleanDeadline) {
			pause(Duration.ofMillis(100));
			clean(run, mover, uncleaned);
		}
		if (!uncleaned.isEmpty()) {
			run.moveFailures.add("source clean-up did not finish within 30 s: " + uncleaned);
		}
	}

	/** Resumes every flipped move: it cleans the source once the clean delay has passed (if the mover has not). */
	private static void clean(Run run, Mover mover, Map<String, String> uncleaned) {
		uncleaned.entrySet().removeIf(move -> {
			try {
				return mover.resume(move.getValue()).step() == MoveStep.DONE;
			}
			catch (ShardTenancyException ex) {
				run.moveFailures.add("clean of move " + move.getValue() + ": " + ex.getClass().getSimpleName() + ": "
						+ ex.getMessage());
				return true;
			}
		});
	}

	/**
	 * The mover's hook here: records when each step of each move was recorded, and the step's data. Thread-safe.
	 */
	private static final class StepTimes implements MoveHook {

		private final TenantMover reader;

		private final Map<String, List<String[]>> steps = new ConcurrentHashMap<>();

		private final Map<String, Long> last = new ConcurrentHashMap<>();

		StepTimes(TenantMover reader) {
			this.reader = reader;
		}

		@Override
		public void stepRecorded(String moveId, MoveStep step) {
			long now = System.nanoTime();
			Long previous = this.last.put(moveId, now);
			String data = this.reader.status(moveId).stepData();
			this.steps.computeIfAbsent(moveId, id -> Collections.synchronizedList(new ArrayList<>()))
				.add(new String[] { step.name(), previous == null ? "0" : "" + (now - previous) / 1_000_000,
						data == null ? "" : data });
		}

		/** @return e.g. {@code MARKED 4 ms, COPIED 9 ms (rows=120), ...} */
		String describe(String moveId) {
			StringBuilder out = new StringBuilder();
			for (String[] step : this.steps.getOrDefault(moveId, List.of())) {
				if (step[0].equals(MoveStep.PLANNED.name())) {
					continue;
				}
				out.append(out.isEmpty() ? "" : ", ").append(step[0]).append(' ').append(step[1]).append(" ms");
				if (step[0].equals(MoveStep.COPIED.name()) || step[0].equals(MoveStep.CAUGHT_UP.name())) {
					out.append(" (").append(step[2].replaceAll(" tables=\\{.*\\}", "")).append(')');
				}
			}
			return out.toString();
		}

	}

	private static void awaitWorker(Future<?> worker, LongAdder untyped, Run run) throws InterruptedException {
		try {
			worker.get();
		}
		catch (ExecutionException ex) {
			run.untyped(untyped, "worker thread", ex.getCause());
		}
	}

	private static void pause(Duration pause) {
		if (pause.isZero()) {
			return;
		}
		try {
			Thread.sleep(pause.toMillis(), (int) (pause.toNanos() % 1_000_000));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * Reads the tenant's rows on every shard with plain JDBC (no routing, no fence) and compares them with the ids the
	 * writers saw committed.
	 */
	private DemoReport.TenantCheck check(String tenant, List<String> shards, Set<UUID> committed,
			Map<UUID, String> ownerOfCommitted) {
		DirectoryEntry owner = this.directory.find(tenant).orElseThrow();
		Map<String, List<UUID>> idsByShard = new LinkedHashMap<>();
		long misplaced = 0;
		for (String shard : shards) {
			idsByShard.put(shard, query(shard, "SELECT id FROM orders WHERE tenant_id = ?", tenant));
			if (!shard.equals(owner.shardId())) {
				for (TenantTable table : TENANT_TABLES) {
					misplaced += query(shard, "SELECT id FROM " + table.table() + " WHERE " + table.tenantColumn()
							+ " = ?", tenant).size();
				}
			}
		}
		List<UUID> onOwner = idsByShard.get(owner.shardId());
		Set<UUID> onOwnerSet = Set.copyOf(onOwner);
		Map<UUID, Integer> occurrences = new HashMap<>();
		idsByShard.values().forEach(ids -> ids.forEach(id -> occurrences.merge(id, 1, Integer::sum)));
		long duplicated = occurrences.values().stream().filter(n -> n > 1).count();
		long lost = committed.stream().filter(id -> !onOwnerSet.contains(id)).count();
		long unexpected = onOwnerSet.stream().filter(id -> !committed.contains(id)).count();
		committed.stream().filter(onOwnerSet::contains).forEach(id -> ownerOfCommitted.put(id, owner.shardId()));
		long customers = query(owner.shardId(), "SELECT id FROM customers WHERE tenant_id = ?", tenant).size();
		long withoutOneLine = query(owner.shardId(), "SELECT o.id FROM orders o LEFT JOIN order_lines l "
				+ "ON l.order_id = o.id AND l.tenant_id = o.tenant_id WHERE o.tenant_id = ? GROUP BY o.id "
				+ "HAVING COUNT(l.id) <> 1", tenant).size();
		return new DemoReport.TenantCheck(tenant, owner.shardId(), owner.state().name(), committed.size(),
				onOwner.size(), customers, lost, duplicated, misplaced, unexpected, withoutOneLine);
	}

	private List<UUID> query(String shardId, String sql, String tenant) {
		try (Connection c = this.topology.shard(shardId).dataSource().getConnection();
				PreparedStatement ps = c.prepareStatement(sql)) {
			ps.setString(1, tenant);
			List<UUID> ids = new ArrayList<>();
			try (ResultSet rs = ps.executeQuery()) {
				while (rs.next()) {
					ids.add(rs.getObject(1, UUID.class));
				}
			}
			return ids;
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Cannot read the orders of tenant '" + tenant + "' on shard '" + shardId
					+ "': " + ex.getMessage(), ex);
		}
	}

	private static String narrate(CallTrace trace, List<MoveResult> moves, Map<UUID, String> ownerOfCommitted) {
		if (trace == null) {
			return null;
		}
		CallTrace.Failure stale = trace.firstStaleRejection().orElseThrow();
		FenceRejection r = stale.rejection();
		StringBuilder out = new StringBuilder();
		int step = 0;
		out.append(String.format("  %d. A writer bound tenant '%s' and called DemoOrderWriter.placeOrder (outermost "
				+ "@Transactional). The application's router had tenant '%s' cached on shard '%s' with directory "
				+ "version %d, and attempt %d was routed there.%n", ++step, trace.tenantId, r.tenantId(), r.shardId(),
				r.seenVersion(), stale.attempt()));
		MoveResult cause = null;
		synchronized (moves) {
			for (MoveResult m : moves) {
				if (m.tenantId().equals(r.tenantId())
						&& (m.flipVersion() == r.requiredVersion() || m.freezeVersion() == r.requiredVersion())) {
					cause = m;
				}
			}
		}
		if (cause != null && cause.freezeVersion() == r.requiredVersion()) {
			out.append(String.format("  %d. Meanwhile the mover (the other instance, with its own router) had started "
					+ "moving it %s -> %s: it froze the tenant at directory version %d, so the source fence required "
					+ "at least that version (the move flipped at version %d after a freeze window of %d ms). The "
					+ "app's router had not synced the freeze.%n", ++step, cause.sourceShardId(), cause.targetShardId(),
					cause.freezeVersion(), cause.flipVersion(), cause.freezeWindow().toMillis()));
		}
		else if (cause != null) {
			out.append(String.format("  %d. Meanwhile the mover (the other instance, with its own router) had moved "
					+ "it %s -> %s: frozen at version %d, flipped at version %d after a freeze window of %d ms, and "
					+ "the source fence marked MOVED at %d. The app's router had not synced the flip.%n", ++step,
					cause.sourceShardId(), cause.targetShardId(), cause.freezeVersion(), cause.flipVersion(),
					cause.freezeWindow().toMillis(), cause.flipVersion()));
		}
		out.append(String.format("  %d. Shard '%s' fence rejected it: %s, directory version seen %d, required %d "
				+ "(SQLSTATE 40001, surfaced as %s%s).%n", ++step, r.shardId(), r.reason(), r.seenVersion(),
				r.requiredVersion(), stale.surfacedAs(), where(stale.surfacedAs())));
		out.append(String.format("  %d. The retry found the fence rejection in the cause chain and invalidated that one "
				+ "router entry (%s). After the backoff, just before the retry, the cache held "
				+ "%s.%n", ++step, "counted in the router's invalidations",
				trace.cachedBeforeFirstRetry == null ? "(not observed)"
						: trace.cachedBeforeFirstRetry.map(e -> "shard '" + e.shardId() + "' version " + e.version()
								+ " " + e.state() + " (already reloaded from the directory by a lookup or the sync)")
							.orElse("nothing for the tenant (dropped): the next lookup reads the directory")));
		for (CallTrace.Failure later : trace.failures) {
			if (later != stale && later.attempt() > stale.attempt()) {
				out.append(String.format("  %d. Attempt %d was rejected again: %s.%n", ++step, later.attempt(),
						later.rejection() != null ? later.rejection().reason() + " on shard '"
								+ later.rejection().shardId() + "', required version "
								+ later.rejection().requiredVersion() : later.surfacedAs()));
			}
		}
		String entry = trace.cachedAtSuccess == null ? "(entry not observed)"
				: "shard '" + trace.cachedAtSuccess.shardId() + "' with directory version "
						+ trace.cachedAtSuccess.version() + " (" + trace.cachedAtSuccess.state() + ")";
		out.append(String.format("  %d. Attempt %d was routed with the refreshed entry, %s: the whole method ran "
				+ "again with a fresh persistence context and committed order %s.%n", ++step, trace.executions, entry,
				trace.committedId));
		String foundOn = ownerOfCommitted.get(trace.committedId);
		out.append(String.format("  %d. Check after the run: order %s %s.%n", ++step, trace.committedId,
				foundOn != null ? "is on shard '" + foundOn + "', the tenant's owner at the end of the run"
						: "was NOT found on the tenant's owner"));
		return out.toString();
	}

	private static String where(String surfacedAs) {
		return switch (surfacedAs) {
			case "CannotCreateTransactionException" -> ", at transaction begin, before the body ran";
			case "CannotAcquireLockException" -> ", at a statement or the flush";
			case "PessimisticLockException" -> ", at an explicit flush";
			case "JpaSystemException", "TransactionSystemException" -> ", at commit";
			default -> "";
		};
	}

}
