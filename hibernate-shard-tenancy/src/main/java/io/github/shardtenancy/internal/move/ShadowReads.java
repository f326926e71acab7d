package io.github.shardtenancy.internal.move;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.DualRead;
import io.github.shardtenancy.DualReadSettings;
import io.github.shardtenancy.MoveException;
import io.github.shardtenancy.MoveStatus;
import io.github.shardtenancy.MoveStep;
import io.github.shardtenancy.TenantState;
import io.github.shardtenancy.internal.jdbc.StatementCount;
import io.github.shardtenancy.internal.routing.Router;
import io.github.shardtenancy.internal.topology.Topology;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link DualRead}: compares a moving tenant's query on source and target on {@value #THREADS} daemon threads of
 * its own (a queue of at most {@value #QUEUE} comparisons; beyond it a comparison is skipped), and runs the registered
 * queries in the move's verification ({@link #verify}). Thread-safe; {@link #close()} stops its threads.
 */
public final class ShadowReads implements DualRead, AutoCloseable {

	private static final Logger log = LoggerFactory.getLogger(ShadowReads.class);

	/** Threads at most. */
	static final int THREADS = 2;

	/** Queued comparisons at most. */
	static final int QUEUE = 256;

	private final Router router;

	private final Topology topology;

	private final DualReadSettings settings;

	private final Function<String, Optional<MoveStatus>> activeMove;

	private final Map<String, String> queries = new ConcurrentSkipListMap<>();

	private final Map<String, LongAdder> mismatches = new ConcurrentHashMap<>();

	private final ThreadPoolExecutor executor;

	/**
	 * @param router the router: where a tenant lives and where it is moving, and the observers told of each
	 * comparison
	 * @param topology the shards
	 * @param settings the dual-read settings
	 * @param activeMove a tenant's unfinished move, if any (the mover's {@code findActive})
	 * @throws NullPointerException if an argument is {@code null}
	 */
	public ShadowReads(Router router, Topology topology, DualReadSettings settings,
			Function<String, Optional<MoveStatus>> activeMove) {
		this.router = Objects.requireNonNull(router, "router");
		this.topology = Objects.requireNonNull(topology, "topology");
		this.settings = Objects.requireNonNull(settings, "settings");
		this.activeMove = Objects.requireNonNull(activeMove, "activeMove");
		AtomicInteger threads = new AtomicInteger();
		this.executor = new ThreadPoolExecutor(THREADS, THREADS, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(QUEUE),
				task -> {
					Thread thread = new Thread(task, "shard-tenancy-dual-read-" + threads.incrementAndGet());
					thread.setDaemon(true);
					return thread;
				});
		this.executor.allowCoreThreadTimeOut(true);
	}

	@Override
	public DualReadSettings settings() {
		return this.settings;
	}

	@Override
	public void register(String name, String sql) {
		Objects.requireNonNull(sql, "sql");
		if (Objects.requireNonNull(name, "name").isBlank()) {
			throw new IllegalArgumentException("A dual-read query needs a name");
		}
		this.queries.put(name, sql);
	}

	@Override
	public Map<String, String> queries() {
		return Map.copyOf(this.queries);
	}

	@Override
	public CompletableFuture<Result> compare(String tenantId, String name) {
		Objects.requireNonNull(tenantId, "tenantId");
		String sql = this.queries.get(Objects.requireNonNull(name, "name"));
		if (sql == null) {
			throw new IllegalArgumentException("No dual-read query is named '" + name + "'; registered: "
					+ this.queries.keySet());
		}
		return compare(tenantId, name, sql, List.of(tenantId));
	}

	@Override
	public CompletableFuture<Result> compare(String tenantId, String name, String sql, List<?> parameters) {
		Objects.requireNonNull(tenantId, "tenantId");
		Objects.requireNonNull(name, "name");
		Objects.requireNonNull(sql, "sql");
		List<Object> values = Collections.unmodifiableList(new ArrayList<>(Objects.requireNonNull(parameters,
				"parameters")));
		if (!this.settings.enabled()) {
			return CompletableFuture.completedFuture(skipped(name, tenantId, "dual read is off"));
		}
		Optional<DirectoryEntry> cached = this.router.cached(tenantId);
		if (cached.isPresent() && !isMoving(cached.get())) {
			// the common case, answered on the caller's thread without a task; not counted (it is not a comparison)
			return CompletableFuture.completedFuture(skipped(name, tenantId, "not moving"));
		}
		long started = System.nanoTime();
		if (this.settings.sampleRate() < 1.0 && ThreadLocalRandom.current().nextDouble() >= this.settings.sampleRate()) {
			return CompletableFuture.completedFuture(report(skipped(name, tenantId, "not sampled"), started));
		}
		CompletableFuture<Result> future = new CompletableFuture<>();
		try {
			this.executor.execute(() -> {
				Run outcome = run(tenantId, name, sql, values, started);
				if (outcome.result().outcome() == Outcome.MISMATCH) {
					this.mismatches.computeIfAbsent(outcome.moveId(), id -> new LongAdder()).increment();
				}
				future.complete(outcome.result());
			});
		}
		catch (RejectedExecutionException ex) {
			future.complete(skipped(name, tenantId, "the dual read's queue is full"));
		}
		future.completeOnTimeout(new Result(name, tenantId, Outcome.ERROR, null, null,
				"timed out after " + this.settings.timeout().toMillis() + " ms"), this.settings.timeout().toNanos(),
				TimeUnit.NANOSECONDS);
		return future.thenApply(result -> report(result, started));
	}

	@Override
	public long mismatches(String moveId) {
		LongAdder count = this.mismatches.get(Objects.requireNonNull(moveId, "moveId"));
		return count == null ? 0 : count.sum();
	}

	/** What a comparison found, and the move it ran during (when it ran). */
	private record Run(Result result, String moveId) {
	}

	private Run run(String tenantId, String name, String sql, List<Object> parameters, long started) {
		String from = null;
		String to = null;
		try {
			DirectoryEntry entry = this.router.route(tenantId);
			if (!isMoving(entry)) {
				return new Run(skipped(name, tenantId, "not moving"), null);
			}
			from = entry.shardId();
			to = entry.targetShardId();
			Optional<MoveStatus> move = this.activeMove.apply(tenantId);
			if (move.isEmpty() || !hasCopied(move.get())) {
				return new Run(skipped(name, tenantId, "the move has not copied the tenant yet"), null);
			}
			Topology.Shard source = this.topology.shard(from);
			Topology.Shard target = this.topology.shard(to);
			long deadline = started + this.settings.timeout().toNanos();
			String difference = null;
			for (int attempt = 0; attempt <= this.settings.rechecks(); attempt++) {
				if (attempt > 0) {
					long pause = Math.min(this.settings.recheckDelay().toNanos(), deadline - System.nanoTime());
					if (pause > 0) {
						TimeUnit.NANOSECONDS.sleep(pause);
					}
					if (System.nanoTime() >= deadline) {
						break;
					}
					DirectoryEntry now = this.router.route(tenantId);
					if (!isMoving(now) || !from.equals(now.shardId()) || !to.equals(now.targetShardId())) {
						return new Run(skipped(name, tenantId, "the move ended during the re-checks"), null);
					}
				}
				difference = difference(read(source, sql, parameters), read(target, sql, parameters));
				if (difference == null) {
					return new Run(new Result(name, tenantId,
							attempt == 0 ? Outcome.MATCH : Outcome.BEHIND, from, to, null),
							move.get().moveId());
				}
			}
			return new Run(new Result(name, tenantId, Outcome.MISMATCH, from, to, difference),
					move.get().moveId());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return new Run(new Result(name, tenantId, Outcome.ERROR, from, to, "interrupted"), null);
		}
		catch (SQLException | RuntimeException ex) {
			return new Run(new Result(name, tenantId, Outcome.ERROR, from, to, ex.toString()), null);
		}
	}

	private Result report(Result result, long started) {
		long nanos = System.nanoTime() - started;
		switch (result.outcome()) {
			case MISMATCH -> log.warn("Dual read '{}' of tenant '{}': source '{}' and target '{}' differ: {}",
					result.name(), result.tenantId(), result.sourceShardId(), result.targetShardId(), result.detail());
			case ERROR -> log.info("Dual read '{}' of tenant '{}' (source '{}', target '{}') failed: {}",
					result.name(), result.tenantId(), result.sourceShardId(), result.targetShardId(), result.detail());
			case BEHIND -> log.debug("Dual read '{}' of tenant '{}': target '{}' was behind source '{}'",
					result.name(), result.tenantId(), result.targetShardId(), result.sourceShardId());
			default -> {
			}
		}
		try {
			this.router.observer().dualRead(result.name(), result.outcome().name().toLowerCase(Locale.ROOT), nanos);
		}
		catch (RuntimeException ex) {
			log.warn("Observer {} failed on a dual read; ignored", this.router.observer(), ex);
		}
		return result;
	}

	private static Result skipped(String name, String tenantId, String why) {
		return new Result(name, tenantId, Outcome.SKIPPED, null, null, why);
	}

	private static boolean isMoving(DirectoryEntry entry) {
		return (entry.state() == TenantState.MIGRATING || entry.state() == TenantState.FROZEN)
				&& entry.targetShardId() != null;
	}

	/** @return whether the target holds the whole tenant, up to the catch-up's lag */
	private static boolean hasCopied(MoveStatus move) {
		MoveStep step = move.step();
		return switch (step) {
			case COPIED, CAUGHT_UP, FINAL_CAUGHT_UP, VERIFIED -> true;
			// the online move freezes after copying; the stop-the-world move before
			case FROZEN -> move.settings().capture();
			default -> false;
		};
	}

	/**
	 * Runs the registered queries on source and target inside the freeze, after the final catch-up, where they must
	 * return the same rows. Nothing when dual read is off or no query is registered.
	 * @return what was verified, for the step's record, or {@code null} if nothing
	 * @throws MoveException naming the first query whose rows differ
	 */
	String verify(MoveRun run) {
		if (!this.settings.enabled() || this.queries.isEmpty()) {
			return null;
		}
		Map<String, String> snapshot = new java.util.TreeMap<>(this.queries);
		List<Object> tenant = List.of(run.tenantId());
		for (Map.Entry<String, String> query : snapshot.entrySet()) {
			Object[] rows = run.both(() -> run.sql(run.from, () -> read(run.from, query.getValue(), tenant)),
					() -> run.sql(run.to, () -> read(run.to, query.getValue(), tenant)));
			@SuppressWarnings("unchecked")
			String difference = difference((List<String>) rows[0], (List<String>) rows[1]);
			if (difference != null) {
				throw new MoveException("Verification of tenant '" + run.tenantId() + "' failed for dual-read query '"
						+ query.getKey() + "' between source '" + run.from.id() + "' and target '" + run.to.id()
						+ "': " + difference, run.tenantId(), run.to.id(), -1, null);
			}
		}
		return "dual-read queries equal: " + snapshot.size() + ", mismatches during the move seen here: "
				+ mismatches(run.move.moveId());
	}

	/**
	 * @return the query's rows on a shard, each as the text of its values, sorted (so compared as a multiset), read
	 * in a read-only maintenance transaction of a connection of its own, rolled back
	 * @throws SQLException on a database error, or if the query returns more than {@link #MAX_ROWS} rows
	 */
	private List<String> read(Topology.Shard shard, String sql, List<Object> parameters) throws SQLException {
		try (Connection c = shard.dataSource().getConnection()) {
			if (!StatementCount.isOne(shard.dialect(), c, sql)) {
				throw new SQLException("A dual-read query must hold one statement as the driver of shard '"
						+ shard.id() + "' reads it (a ';' outside quotes and comments starts another), was '"
						+ sql.strip() + "'");
			}
			c.setReadOnly(true);
			try {
				return MoveSql.acrossTenants(shard, c, () -> {
					try (PreparedStatement ps = c.prepareStatement(sql)) {
						ps.setQueryTimeout((int) Math.max(1, (this.settings.timeout().toMillis() + 999) / 1000));
						for (int i = 0; i < parameters.size(); i++) {
							ps.setObject(i + 1, parameters.get(i));
						}
						List<String> rows = new ArrayList<>();
						try (ResultSet rs = ps.executeQuery()) {
							int columns = rs.getMetaData().getColumnCount();
							while (rs.next()) {
								if (rows.size() == MAX_ROWS) {
									throw new SQLException("Dual-read query returned more than " + MAX_ROWS
											+ " rows on shard '" + shard.id() + "'");
								}
								StringBuilder row = new StringBuilder("(");
								for (int i = 1; i <= columns; i++) {
									row.append(i > 1 ? ", " : "").append(rs.getString(i));
								}
								rows.add(row.append(')').toString());
							}
						}
						Collections.sort(rows);
						return rows;
					}
				});
			}
			finally {
				c.setReadOnly(false);
				shard.dialect().releaseSession(c);
			}
		}
	}

	/** @return a description of how two sorted multisets of rows differ, or {@code null} if they are equal */
	static String difference(List<String> source, List<String> target) {
		if (source.equals(target)) {
			return null;
		}
		Map<String, Integer> counts = new HashMap<>();
		source.forEach(row -> counts.merge(row, 1, Integer::sum));
		target.forEach(row -> counts.merge(row, -1, Integer::sum));
		String onlySource = null;
		String onlyTarget = null;
		for (String row : source) {
			if (counts.get(row) > 0) {
				onlySource = row;
				break;
			}
		}
		for (String row : target) {
			if (counts.get(row) < 0) {
				onlyTarget = row;
				break;
			}
		}
		return "source has " + source.size() + " rows, target " + target.size() + "; first row only on the source "
				+ onlySource + ", first only on the target " + onlyTarget;
	}

	/** Stops the comparison threads; comparisons still queued or running complete as errors or not at all. */
	@Override
	public void close() {
		this.executor.shutdownNow();
	}

}
