package io.github.shardtenancy.internal.move;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

import io.github.shardtenancy.DirectoryUnavailableException;
import io.github.shardtenancy.MoveCheck;
import io.github.shardtenancy.MoveException;
import io.github.shardtenancy.MoveRefusedException;
import io.github.shardtenancy.ShardTenancyException;
import io.github.shardtenancy.TenantIds;
import io.github.shardtenancy.TenantMover;
import io.github.shardtenancy.UnknownTenantException;
import io.github.shardtenancy.MoveResult;
import io.github.shardtenancy.TenantTable;
import io.github.shardtenancy.internal.directory.Directory;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.TenantState;
import io.github.shardtenancy.MoveInProgressException;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.MoveStatus;
import io.github.shardtenancy.MoveStep;
import io.github.shardtenancy.spi.ShardTenancyObserver;
import io.github.shardtenancy.internal.routing.Router;
import io.github.shardtenancy.spi.MoveHook;
import io.github.shardtenancy.internal.topology.Topology;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link TenantMover}: runs the move protocol (see the package documentation) step by step, recording each step in
 * the move log. {@link #move} runs a move on the executor given to the constructor; {@link #moveAndWait},
 * {@link #resume}, {@link #clean} and {@link #abort} run on the calling thread. The executor also runs one half of
 * each verification (source and target are read at once) and the delayed cleans; the mover never shuts it down.
 *
 * <p>A mover instance is one owner in the move log ({@link #owner()}): it takes a move over from another owner only
 * when that owner's heartbeat (written with every batch and step) is older than the lease, and stops at its next
 * write if it lost the move. Within one instance, runs of the same move are serialised.
 *
 * <p>Thread-safe; moves of different tenants may run at once.
 */
public class Mover implements TenantMover {

	private static final Logger log = LoggerFactory.getLogger(Mover.class);

	/**
	 * Time between two reverse catch-up rounds of a move in its soak ({@link MoveSettings#soak()}), run on the
	 * executor by the instance that recorded the flip or resumed the move.
	 */
	public static final Duration SOAK_ROUND_INTERVAL = Duration.ofSeconds(1);

	/** Default time after which another mover may take over a move whose owner stopped writing. */
	public static final Duration DEFAULT_LEASE = Duration.ofSeconds(30);

	private final Directory directory;

	private final Router router;

	private final Topology topology;

	private final List<TenantTable> tables;

	private final String actor;

	private final Executor executor;

	private final Duration lease;

	private final MoveHook hook;

	private final ShadowReads dualRead;

	private final String owner;

	private final MoveLog moveLog;

	/** One lock per move this instance has run, so that its runs of one move never overlap (a few bytes each). */
	private final ConcurrentHashMap<String, ReentrantLock> running = new ConcurrentHashMap<>();

	/** Moves whose delayed clean this instance has scheduled and not run yet. */
	private final Set<String> cleansScheduled = ConcurrentHashMap.newKeySet();

	/** Moves in their soak whose next reverse catch-up round this instance has scheduled and not run yet. */
	private final Set<String> soakRoundsScheduled = ConcurrentHashMap.newKeySet();

	/**
	 * @param directory the directory (its database holds the move log)
	 * @param router the local router, updated at once after each directory write of a move
	 * @param topology the shards
	 * @param tables the tenant tables to move, in any order (sorted by foreign keys); if empty, every move is refused
	 * with a {@link MoveException} (a move that copied nothing would lose the tenant's data)
	 * @param actor who moves, recorded in the directory history (e.g. {@code mover@host})
	 * @param executor runs the moves started with {@link #move}, half of every verification, and delayed cleans; owned
	 * by the caller, who shuts it down. A bounded executor is fine: a verification whose half it has not started runs
	 * that half on the mover's thread
	 * @throws NullPointerException if an argument is {@code null}
	 */
	public Mover(Directory directory, Router router, Topology topology, List<TenantTable> tables,
			String actor, Executor executor) {
		this(directory, router, topology, tables, actor, executor, DEFAULT_LEASE, MoveHook.NONE, null);
	}

	private Mover(Directory directory, Router router, Topology topology, List<TenantTable> tables,
			String actor, Executor executor, Duration lease, MoveHook hook, ShadowReads dualRead) {
		this.directory = Objects.requireNonNull(directory, "directory");
		this.router = Objects.requireNonNull(router, "router");
		this.topology = Objects.requireNonNull(topology, "topology");
		this.tables = List.copyOf(tables);
		this.actor = Objects.requireNonNull(actor, "actor");
		this.executor = Objects.requireNonNull(executor, "executor");
		this.lease = Objects.requireNonNull(lease, "lease");
		this.hook = Objects.requireNonNull(hook, "hook");
		this.dualRead = dualRead;
		this.owner = actor + "/" + UUID.randomUUID();
		this.moveLog = new MoveLog(directory.dataSource());
	}

	/**
	 * @param value how long a move's owner may stay silent before this mover takes the move over, {@code >= 0}
	 * @return a new mover instance (a new owner identity) with that lease
	 * @throws IllegalArgumentException if the lease is negative
	 */
	public Mover withLease(Duration value) {
		if (value.isNegative()) {
			throw new IllegalArgumentException("lease must not be negative: " + value);
		}
		return new Mover(this.directory, this.router, this.topology, this.tables, this.actor, this.executor, value,
				this.hook, this.dualRead);
	}

	/**
	 * @param value the router to keep up to date after each directory write of a move, instead of this mover's (for
	 * example the router of a mover acting as a separate application instance); not {@code null}
	 * @return a new mover instance (a new owner identity) with that router
	 */
	public Mover withRouter(Router value) {
		return new Mover(this.directory, value, this.topology, this.tables, this.actor, this.executor, this.lease,
				this.hook, this.dualRead);
	}

	/**
	 * @param value called after each recorded step; not {@code null}
	 * @return a new mover instance (a new owner identity) with that hook
	 */
	public Mover withHook(MoveHook value) {
		return new Mover(this.directory, this.router, this.topology, this.tables, this.actor, this.executor,
				this.lease, value, this.dualRead);
	}

	/**
	 * @param value the dual read whose registered queries the verification runs on source and target inside the
	 * freeze (when it is switched on); not {@code null}
	 * @return a new mover instance (a new owner identity) with that dual read
	 */
	public Mover withDualRead(ShadowReads value) {
		return new Mover(this.directory, this.router, this.topology, this.tables, this.actor, this.executor,
				this.lease, this.hook, Objects.requireNonNull(value, "value"));
	}

	/** @return this instance's owner identity in the move log ({@code actor/uuid}) */
	public String owner() {
		return this.owner;
	}

	@Override
	public MoveCheck check(String tenantId, String targetShardId) {
		TenantIds.requireValid(tenantId);
		Objects.requireNonNull(targetShardId, "targetShardId");
		DirectoryEntry entry = this.directory.find(tenantId)
			.orElseThrow(() -> new UnknownTenantException(tenantId, this.router.version()));
		Topology.Shard source = this.topology.shard(entry.shardId());
		Topology.Shard target = this.topology.shard(targetShardId);
		List<String> problems = new ArrayList<>();
		if (entry.state() != TenantState.ACTIVE) {
			problems.add("Tenant '" + tenantId + "' is " + entry.state() + " on shard '" + source.id()
					+ "'; only an ACTIVE tenant can be moved");
		}
		if (source.id().equals(targetShardId)) {
			problems.add("Tenant '" + tenantId + "' already lives on shard '" + targetShardId + "'");
		}
		this.moveLog.findActive(tenantId)
			.ifPresent(row -> problems.add(inProgress(entry, row.status()).getMessage()));
		if (this.tables.isEmpty()) {
			problems.add(noTables(tenantId, source).getMessage());
			return new MoveCheck(tenantId, source.id(), targetShardId, problems, Map.of(), -1);
		}
		List<TablePlan> from = planEach(source, tenantId, problems);
		List<TablePlan> to = planEach(target, tenantId, problems);
		problems.addAll(triggerRefusals(tenantId, source));
		problems.addAll(triggerRefusals(tenantId, target));
		problems.addAll(preFlight(source, from, target, to, tenantId));
		Map<String, Long> rows = new LinkedHashMap<>();
		long bytes;
		try {
			bytes = PreFlight.size(source, tenantId, from, rows);
		}
		catch (SQLException ex) {
			throw PreFlight.unreadable(source, tenantId, ex);
		}
		return new MoveCheck(tenantId, source.id(), targetShardId, problems, rows, bytes);
	}

	/**
	 * The plans of the tables a shard has as a move needs them; each table it cannot move adds its problem instead.
	 */
	private List<TablePlan> planEach(Topology.Shard shard, String tenantId, List<String> problems) {
		try (Connection c = shard.dataSource().getConnection()) {
			List<TenantTable> movable = new ArrayList<>();
			for (TenantTable table : this.tables) {
				try {
					TablePlan.plan(c, shard.dialect(), shard.id(), tenantId, List.of(table));
					movable.add(table);
				}
				catch (MoveException ex) {
					problems.add(ex.getMessage());
				}
			}
			return TablePlan.plan(c, shard.dialect(), shard.id(), tenantId, movable);
		}
		catch (SQLException ex) {
			throw PreFlight.unreadable(shard, tenantId, ex);
		}
	}

	/**
	 * The columns' differences between the shards and the tenant's keys the target holds for other tenants, for the
	 * tables both shards have.
	 */
	private static List<String> preFlight(Topology.Shard source, List<TablePlan> from, Topology.Shard target,
			List<TablePlan> to, String tenantId) {
		List<String> onSource = from.stream().map(TablePlan::sqlName).toList();
		List<String> onTarget = to.stream().map(TablePlan::sqlName).toList();
		List<TablePlan> both = from.stream().filter(p -> onTarget.contains(p.sqlName())).toList();
		List<TablePlan> bothOnTarget = to.stream().filter(p -> onSource.contains(p.sqlName())).toList();
		try {
			List<String> drift = PreFlight.drift(source, both, target, bothOnTarget);
			return drift.isEmpty() ? PreFlight.clashes(source, target, tenantId, both) : drift;
		}
		catch (SQLException ex) {
			throw PreFlight.unreadable(target, tenantId, ex);
		}
	}

	@Override
	public String move(String tenantId, String targetShardId, MoveSettings settings) {
		MoveRun run = start(tenantId, targetShardId, settings);
		String moveId = run.move.moveId();
		try {
			this.executor.execute(() -> {
				try {
					exclusive(moveId, () -> {
						tellObservers(run.move);
						this.hook.stepRecorded(moveId, MoveStep.PLANNED);
						return run(run, false);
					});
				}
				catch (RuntimeException ex) {
					log.warn("Move {} of tenant '{}' failed: {}", moveId, tenantId, ex.getMessage());
				}
				catch (Error ex) {
					log.error("Move {} of tenant '{}' stopped; resume or abort it", moveId, tenantId, ex);
					throw ex;
				}
			});
		}
		catch (RejectedExecutionException ex) {
			new AbortStep("the executor refused the move: " + ex.getMessage()).run(run);
			throw new MoveException("Move " + moveId + " of tenant '" + tenantId + "' could not start: the mover's "
					+ "executor refused it (" + ex.getMessage() + "); it was aborted", tenantId,
					run.move.sourceShardId(), -1, ex);
		}
		return moveId;
	}

	@Override
	public MoveResult moveAndWait(String tenantId, String targetShardId, MoveSettings settings) {
		long started = System.nanoTime();
		MoveRun run = start(tenantId, targetShardId, settings);
		String moveId = run.move.moveId();
		MoveStatus end = exclusive(moveId, () -> {
			tellObservers(run.move);
			this.hook.stepRecorded(moveId, MoveStep.PLANNED);
			return run(run, false);
		});
		return new MoveResult(moveId, tenantId, run.move.sourceShardId(), targetShardId, end.step(),
				run.freezeVersion, run.flipVersion, run.copied, end.freezeWindow().orElse(Duration.ZERO),
				Duration.ofNanos(System.nanoTime() - started));
	}

	@Override
	public MoveStatus resume(String moveId) {
		return exclusive(moveId, () -> {
			MoveStatus move = require(moveId);
			if (move.isFinished()) {
				return move;
			}
			claim(move);
			return run(newRun(require(moveId)), false);
		});
	}

	@Override
	public MoveStatus clean(String moveId) {
		return exclusive(moveId, () -> {
			MoveStatus move = require(moveId);
			if (move.step() == MoveStep.DONE || move.step() == MoveStep.REVERTED) {
				return move;
			}
			if (move.step() != MoveStep.FLIPPED && move.step() != MoveStep.REVERT_FLIPPED) {
				throw new MoveException("Move " + moveId + " of tenant '" + move.tenantId() + "' is at step "
						+ move.step() + "; only a FLIPPED move can be cleaned", move.tenantId(), move.sourceShardId(),
						-1, null);
			}
			claim(move);
			MoveStatus claimed = require(moveId);
			if (claimed.step() != move.step()) {
				this.moveLog.release(moveId, this.owner, null);
				throw new MoveException("Move " + moveId + " of tenant '" + move.tenantId() + "' is at step "
						+ claimed.step() + "; only a FLIPPED move can be cleaned", move.tenantId(),
						move.sourceShardId(), -1, null);
			}
			return run(newRun(claimed), true);
		});
	}

	@Override
	public MoveStatus revert(String moveId) {
		return exclusive(moveId, () -> {
			MoveStatus move = require(moveId);
			if (move.step() == MoveStep.REVERTED) {
				return move;
			}
			if (!move.step().isReverting()) {
				requireRevertable(move);
			}
			claim(move);
			MoveStatus claimed = require(moveId);
			if (!claimed.step().isReverting()) {
				try {
					requireRevertable(claimed);
				}
				catch (MoveException ex) {
					this.moveLog.release(moveId, this.owner, null);
					throw ex;
				}
				this.moveLog.step(claimed, this.owner, MoveStep.REVERTING, "revert requested by " + this.actor);
				log.info("Move {} of tenant '{}' from '{}' to '{}': revert requested", moveId, claimed.tenantId(),
						claimed.sourceShardId(), claimed.targetShardId());
				tellObservers(require(moveId));
				this.hook.stepRecorded(moveId, MoveStep.REVERTING);
			}
			return run(newRun(require(moveId)), false);
		});
	}

	/**
	 * @throws MoveException if the move is not FLIPPED with a soak, naming why and what to do instead
	 */
	private static void requireRevertable(MoveStatus move) {
		if (move.isRevertable()) {
			return;
		}
		String why;
		if (move.isCleanStarted()) {
			why = "is being finalised (its clean has started on source '" + move.sourceShardId() + "'); resume it to "
					+ "finish the clean, then move the tenant back instead";
		}
		else if (move.step() == MoveStep.DONE) {
			why = "has been finalised (its source '" + move.sourceShardId() + "' was cleaned); move the tenant back "
					+ "instead";
		}
		else if (move.step() == MoveStep.ABORTED) {
			why = "was aborted: the tenant lives on its source '" + move.sourceShardId() + "'";
		}
		else if (!move.step().isFlipped()) {
			why = "is at step " + move.step() + ", before its flip; abort it instead";
		}
		else {
			why = "has no soak (MoveSettings.soak is zero, shard-tenancy.move.soak), so its source was not kept up to "
					+ "date; move the tenant back instead";
		}
		throw new MoveException("Move " + move.moveId() + " of tenant '" + move.tenantId() + "' from '"
				+ move.sourceShardId() + "' to '" + move.targetShardId() + "' cannot be reverted: it " + why,
				move.tenantId(), move.targetShardId(), -1, null);
	}

	/**
	 * Runs one reverse catch-up round of a move in its soak, on the calling thread: the tenant's changes logged on
	 * the target applied to the source, as the forward catch-up does the other way. The mover runs these rounds on
	 * its executor every {@link #SOAK_ROUND_INTERVAL} during the soak; this runs one now (tests, operations).
	 * @param moveId the move
	 * @return the reverse lag after the round (change-log entries of the tenant on the target), or {@code -1} if the
	 * move is not FLIPPED with a soak (any more)
	 * @throws MoveException if the move is unknown, or the round failed (the next round applies the same changes)
	 * @throws MoveInProgressException if another mover holds the move and its heartbeat is within the lease
	 */
	public long reverseCatchUp(String moveId) {
		return exclusive(moveId, () -> {
			if (!require(moveId).isRevertable()) {
				return -1L;
			}
			claim(require(moveId));
			try {
				MoveStatus move = require(moveId);
				if (!move.isRevertable()) {
					return -1L;
				}
				MoveRun back = newRun(move).reversed(this.topology);
				MoveSettings settings = move.settings();
				long lag = back.sql(back.from, () -> CatchUpRound.catchUpRound(back.from, back.to, move.tenantId(),
						back.plans, settings.batchSize(), settings.throttle(), back.heartbeat()));
				this.moveLog.progress(move, this.owner, "soak until " + move.soakUntil().orElse(null)
						+ ", reverse catch-up lag=" + lag);
				return lag;
			}
			finally {
				this.moveLog.release(moveId, this.owner, null);
			}
		});
	}

	@Override
	public MoveStatus abort(String moveId) {
		return exclusive(moveId, () -> {
			MoveStatus move = require(moveId);
			if (move.step() == MoveStep.ABORTED) {
				return move;
			}
			if (move.step().isFlipped()) {
				throw new MoveException("Move " + moveId + " of tenant '" + move.tenantId() + "' is already "
						+ move.step() + ": the tenant lives on shard '" + move.targetShardId()
						+ "'; move it back instead", move.tenantId(), move.targetShardId(), -1, null);
			}
			claim(move);
			try {
				abort(newRun(require(moveId)), "on command");
			}
			catch (MoveLog.OwnershipLostException ex) {
				throw ex;
			}
			catch (RuntimeException ex) {
				this.moveLog.release(moveId, this.owner, "abort failed: " + ex.getMessage());
				throw ex;
			}
			return require(moveId);
		});
	}

	@Override
	public MoveStatus status(String moveId) {
		return require(moveId);
	}

	@Override
	public List<MoveStatus> findSoaking() {
		return this.moveLog.findFlipped().stream().filter(MoveStatus::isRevertable).toList();
	}

	@Override
	public Optional<MoveStatus> findActive(String tenantId) {
		Objects.requireNonNull(tenantId, "tenantId");
		return this.moveLog.findActive(tenantId).map(MoveLog.Row::status);
	}

	/** Checks the request, records the move (PLANNED, owned by this instance) and returns its run. */
	private MoveRun start(String tenantId, String targetShardId, MoveSettings settings) {
		TenantIds.requireValid(tenantId);
		Objects.requireNonNull(targetShardId, "targetShardId");
		Objects.requireNonNull(settings, "settings");
		DirectoryEntry entry = this.directory.find(tenantId)
			.orElseThrow(() -> new UnknownTenantException(tenantId, this.router.version()));
		Optional<MoveLog.Row> active = this.moveLog.findActive(tenantId);
		if (active.isPresent()) {
			throw inProgress(entry, active.get().status());
		}
		String source = entry.shardId();
		if (entry.state() != TenantState.ACTIVE) {
			throw new MoveException("Tenant '" + tenantId + "' is " + entry.state() + " on shard '" + source
					+ "' (directory version " + entry.version() + "); only an ACTIVE tenant can be moved", tenantId,
					source, entry.version(), null);
		}
		if (source.equals(targetShardId)) {
			throw new MoveException("Tenant '" + tenantId + "' already lives on shard '" + targetShardId
					+ "' (directory version " + entry.version() + ")", tenantId, source, entry.version(), null);
		}
		List<TablePlan> plans = plan(this.topology.shard(source), tenantId);
		List<TablePlan> targetPlans = plan(this.topology.shard(targetShardId), tenantId);
		refuseTriggers(entry, this.topology.shard(source), targetShardId);
		refuseTriggers(entry, this.topology.shard(targetShardId), targetShardId);
		List<String> problems = preFlight(this.topology.shard(source), plans, this.topology.shard(targetShardId),
				targetPlans, tenantId);
		if (!problems.isEmpty()) {
			throw new MoveRefusedException("The move of tenant '" + tenantId + "' from '" + source + "' to '"
					+ targetShardId + "' is refused before it starts (nothing marked, nothing copied): "
					+ String.join("; ", problems), tenantId, targetShardId, entry.version(), problems);
		}
		String moveId = UUID.randomUUID().toString();
		if (!this.moveLog.insert(moveId, tenantId, source, targetShardId, settings, this.owner)) {
			throw this.moveLog.findActive(tenantId).map(row -> inProgress(entry, row.status()))
				.orElseGet(() -> new MoveInProgressException("Tenant '" + tenantId + "' on shard '" + source
						+ "' (directory version " + entry.version() + ") had an unfinished move when this one was "
						+ "recorded", tenantId, source, entry.version(), null));
		}
		log.info("Move {} of tenant '{}' from '{}' to '{}' started ({})", moveId, tenantId, source, targetShardId,
				settings);
		return new MoveRun(require(moveId), this.topology, plans, this.directory, this.router, this.moveLog,
				this.owner, this.actor, this.executor, this.dualRead);
	}

	private MoveRun newRun(MoveStatus move) {
		return new MoveRun(move, this.topology, plan(this.topology.shard(move.sourceShardId()), move.tenantId()),
				this.directory, this.router, this.moveLog, this.owner, this.actor, this.executor, this.dualRead);
	}

	/** Runs the steps after the recorded one until the move ends, or is FLIPPED and waits for its clean delay. */
	private MoveStatus run(MoveRun run, boolean cleanNow) {
		MoveStatus move = run.move;
		MoveStep step = move.step();
		String running = null;
		try {
			while (!step.isFinal()) {
				long stepStarted = System.nanoTime();
				if ((step == MoveStep.FLIPPED || step == MoveStep.REVERT_FLIPPED) && !cleanNow
						&& !move.isCleanStarted()) {
					Instant cleanAfter = this.moveLog.find(move.moveId()).map(MoveLog.Row::cleanAfter).orElse(null);
					if (cleanAfter != null && Instant.now().isBefore(cleanAfter)) {
						boolean soak = step == MoveStep.FLIPPED && run.settings.hasSoak();
						run.step(step, (soak ? "soak: revertable, finalised after " : "clean after ") + cleanAfter);
						this.moveLog.release(move.moveId(), this.owner, null);
						scheduleClean(move.moveId(), cleanAfter);
						if (soak) {
							scheduleReverseCatchUp(move.moveId(), SOAK_ROUND_INTERVAL);
						}
						return require(move.moveId());
					}
				}
				// A revert runs the forward steps from the freeze with source and target swapped.
				MoveRun current = step.isReverting() ? run.reversed(this.topology) : run;
				Step next = Step.after(step, run.settings.capture());
				running = Step.name(next);
				try (ShardTenancyObserver.Scope scope = this.router.observer().moveStepStarted(move.moveId(),
						move.tenantId(), run.settings.capture() ? "online" : "basic", Step.name(next),
						move.sourceShardId(), move.targetShardId())) {
					try {
						next.run(current);
						scope.outcome("success", null, null);
					}
					catch (RuntimeException ex) {
						scope.outcome("error", null, ex);
						throw ex;
					}
				}
				MoveStatus recorded = require(move.moveId());
				step = recorded.step();
				if (step == MoveStep.FLIPPED && recorded.flippedAt() != null) {
					this.router.observer().moveFlipped(run.settings.capture() ? "online" : "basic",
							move.sourceShardId(), move.targetShardId(),
							Duration.between(recorded.createdAt(), recorded.flippedAt()).toNanos(),
							recorded.freezeWindow().map(Duration::toNanos).orElse(0L));
				}
				log.info("Move {} of tenant '{}': {} in {} ms ({})", move.moveId(), move.tenantId(), step,
						(System.nanoTime() - stepStarted) / 1_000_000, recorded.stepData());
				tellObservers(recorded);
				this.hook.stepRecorded(move.moveId(), step);
			}
			MoveStatus done = require(move.moveId());
			log.info("Move {} of tenant '{}' from '{}' to '{}' {} (freeze window {})", move.moveId(), move.tenantId(),
					move.sourceShardId(), move.targetShardId(), done.step(),
					done.freezeWindow().map(d -> d.toMillis() + " ms").orElse("-"));
			return done;
		}
		catch (MoveLog.OwnershipLostException ex) {
			throw ex;
		}
		catch (RuntimeException ex) {
			throw fail(run, step, running, ex);
		}
	}

	/**
	 * @param step the move's last recorded step
	 * @param running the step that failed ({@link Step#name}), or {@code null} if none had started
	 */
	private RuntimeException fail(MoveRun run, MoveStep step, @Nullable String running, RuntimeException ex) {
		MoveStatus move = run.move;
		String what = "Move " + move.moveId() + " of tenant '" + move.tenantId() + "' from '" + move.sourceShardId()
				+ "' to '" + move.targetShardId() + "' failed " + (running != null ? "in its " + running + " step, " : "")
				+ "after step " + step + ": " + reason(ex);
		if (!step.isFlipped()) {
			try {
				abort(newRun(require(move.moveId())), what);
				log.warn("{}; aborted", what, ex);
				return new MoveException(what + "; the move was aborted and the tenant is ACTIVE on '"
						+ move.sourceShardId() + "'", move.tenantId(), move.sourceShardId(), -1, ex);
			}
			catch (RuntimeException abort) {
				ex.addSuppressed(abort);
				log.error("{}; the abort failed too, resume or abort the move", what, ex);
			}
		}
		try {
			this.moveLog.release(move.moveId(), this.owner, what);
		}
		catch (RuntimeException release) {
			ex.addSuppressed(release);
		}
		return (ex instanceof ShardTenancyException) ? ex
				: new MoveException(what + "; resume or abort move " + move.moveId(), move.tenantId(),
						move.sourceShardId(), -1, ex);
	}

	/**
	 * @return the failure's message, or for one without (a driver's {@code NoSuchElementException}, say) its type and
	 * the first message of its causes, so that a failed move never reports "null"
	 */
	static String reason(Throwable ex) {
		if (ex.getMessage() != null) {
			return ex.getMessage();
		}
		StringBuilder reason = new StringBuilder(ex.getClass().getName());
		for (Throwable cause = ex.getCause(); cause != null && cause != ex; cause = cause.getCause()) {
			if (cause.getMessage() != null) {
				return reason.append(" (caused by ").append(cause.getClass().getName()).append(": ")
					.append(cause.getMessage()).append(')').toString();
			}
		}
		return reason.toString();
	}

	private void abort(MoveRun run, String reason) {
		DirectoryEntry restored = new AbortStep(reason).run(run);
		MoveStatus move = run.move;
		log.info("Move {} of tenant '{}' aborted after step {}; tenant {} on '{}' (directory version {})",
				move.moveId(), move.tenantId(), move.step(), restored.state(), restored.shardId(), restored.version());
		try {
			this.moveLog.find(move.moveId()).map(MoveLog.Row::status).ifPresent(this::tellObservers);
		}
		catch (RuntimeException ex) {
			// the abort is done; only the observers miss it
			log.warn("Move {} of tenant '{}' aborted, but its status could not be read for the observers: {}",
					move.moveId(), move.tenantId(), ex.getMessage());
		}
	}

	/** Tells the observers a recorded step; an observer that throws (breaking its contract) never fails the move. */
	private void tellObservers(MoveStatus move) {
		try {
			this.router.observer().moveStepRecorded(move);
		}
		catch (RuntimeException ex) {
			log.warn("Observer {} failed on step {} of move {}; the move goes on", this.router.observer(), move.step(),
					move.moveId(), ex);
		}
	}

	/**
	 * Resumes a flipped move (or reverted one, REVERT_FLIPPED) on the executor once its clean delay (or soak) has
	 * passed, so that it is cleaned (finalised), unless one is scheduled already. If the executor refuses the task
	 * then (shut down), or the process stops first, the move stays as it is for {@link #resume} or {@link #clean}.
	 */
	private void scheduleClean(String moveId, Instant cleanAfter) {
		if (!this.cleansScheduled.add(moveId)) {
			return;
		}
		long delay = Math.max(0, Duration.between(Instant.now(), cleanAfter).toMillis());
		CompletableFuture.runAsync(() -> {
			this.cleansScheduled.remove(moveId);
			try {
				// resume, not clean: a stale task (say, the end of a soak whose move was reverted since) then respects
				// the move's current clean time
				resume(moveId);
			}
			catch (RuntimeException ex) {
				log.warn("Delayed clean of move {} failed; it stays flipped for resume or clean: {}", moveId,
						ex.getMessage());
			}
		}, CompletableFuture.delayedExecutor(delay, TimeUnit.MILLISECONDS, this.executor));
	}

	/**
	 * Runs the reverse catch-up of a move in its soak on the executor every {@link #SOAK_ROUND_INTERVAL}, unless it is
	 * scheduled already, until the move is no longer FLIPPED (finalised or reverted); while a round leaves more than
	 * {@link MoveSettings#catchUpLagThreshold()} entries, the next starts at once. A round that fails, or finds the
	 * move held by another mover, is logged and tried again at the next one. If the executor refuses a round
	 * (shut down), or the process stops, the rounds stop; {@link #resume} starts them again.
	 */
	private void scheduleReverseCatchUp(String moveId, Duration delay) {
		if (!this.soakRoundsScheduled.add(moveId)) {
			return;
		}
		CompletableFuture.runAsync(() -> {
			this.soakRoundsScheduled.remove(moveId);
			long lag;
			long threshold = Long.MAX_VALUE;
			try {
				threshold = require(moveId).settings().catchUpLagThreshold();
				lag = reverseCatchUp(moveId);
			}
			catch (RuntimeException ex) {
				log.warn("Reverse catch-up of move {} failed; tried again in {}: {}", moveId, SOAK_ROUND_INTERVAL,
						ex.getMessage());
				lag = 0;
			}
			if (lag >= 0) {
				scheduleReverseCatchUp(moveId, (lag > threshold) ? Duration.ZERO : SOAK_ROUND_INTERVAL);
			}
		}, CompletableFuture.delayedExecutor(delay.toMillis(), TimeUnit.MILLISECONDS, this.executor));
	}

	/** Runs work on a move with this instance's lock on it, so that two runs of one move here never overlap. */
	private <T> T exclusive(String moveId, Supplier<T> work) {
		Objects.requireNonNull(moveId, "moveId");
		ReentrantLock lock = this.running.computeIfAbsent(moveId, id -> new ReentrantLock());
		lock.lock();
		try {
			return work.get();
		}
		finally {
			lock.unlock();
		}
	}

	private void claim(MoveStatus move) {
		if (!this.moveLog.claim(move.moveId(), this.owner, this.lease)) {
			MoveStatus now = require(move.moveId());
			if (now.isFinished()) {
				throw new MoveException("Move " + move.moveId() + " of tenant '" + move.tenantId() + "' has ended ("
						+ now.step() + ")", move.tenantId(), move.sourceShardId(), -1, null);
			}
			throw new MoveInProgressException("Move " + move.moveId() + " of tenant '" + move.tenantId() + "' from '"
					+ move.sourceShardId() + "' to '" + move.targetShardId() + "' is held by " + now.owner()
					+ " (last heartbeat " + now.heartbeat() + ", lease " + this.lease + ")", move.tenantId(),
					move.sourceShardId(), -1, move.moveId());
		}
	}

	/**
	 * @throws MoveException if the move is unknown
	 * @throws DirectoryUnavailableException if the move log cannot be read
	 */
	private MoveStatus require(String moveId) {
		Objects.requireNonNull(moveId, "moveId");
		return this.moveLog.find(moveId).map(MoveLog.Row::status)
			.orElseThrow(() -> new MoveException("No move with id " + moveId, null, null, -1, null));
	}

	private static MoveInProgressException inProgress(DirectoryEntry entry, MoveStatus active) {
		if (active.isRevertable() || active.step().isReverting()) {
			return new MoveInProgressException("Tenant '" + entry.tenantId() + "' (" + entry.state() + " on shard '"
					+ entry.shardId() + "', directory version " + entry.version() + ") is in the soak of move "
					+ active.moveId() + " from '" + active.sourceShardId() + "' to '" + active.targetShardId()
					+ "' (step " + active.step() + ", soak until " + active.soakUntil().orElse(null)
					+ "): finalise it (TenantMover.clean) or revert it (TenantMover.revert) before moving the tenant "
					+ "again", entry.tenantId(), entry.shardId(), entry.version(), active.moveId());
		}
		return new MoveInProgressException("Tenant '" + entry.tenantId() + "' (" + entry.state() + " on shard '"
				+ entry.shardId() + "', directory version " + entry.version() + ") is already being moved to '"
				+ active.targetShardId() + "' by move " + active.moveId() + " (step " + active.step() + ")",
				entry.tenantId(), entry.shardId(), entry.version(), active.moveId());
	}

	/**
	 * Refuses the move before anything is recorded when a shard of it (the source, whose rows the clean deletes, or
	 * the target, which the copy, the catch-up and an abort write) has tenant tables whose triggers of the
	 * application the mover's writes would fire ({@link io.github.shardtenancy.spi.FenceDialect#moveTriggerRefusals}).
	 * @throws MoveRefusedException naming the shard, each table and trigger, and the remedy
	 */
	private void refuseTriggers(DirectoryEntry entry, Topology.Shard shard, String targetShardId) {
		String tenantId = entry.tenantId();
		List<String> reasons = triggerRefusals(tenantId, shard);
		if (!reasons.isEmpty()) {
			throw new MoveRefusedException("The move of tenant '" + tenantId + "' from '" + entry.shardId()
					+ "' to '" + targetShardId + "' is refused before it starts (nothing marked, nothing copied): "
					+ "its writes on shard '" + shard.id() + "' would fire triggers of the application: "
					+ String.join("; ", reasons), tenantId, shard.id(), entry.version(), reasons);
		}
	}

	private static MoveException noTables(String tenantId, Topology.Shard shard) {
		return new MoveException("The mover has no tenant tables, so it cannot move tenant '" + tenantId
				+ "' from or to shard '" + shard.id() + "': configure them (shard-tenancy.tenant-tables) or map "
				+ "the entities with @TenantId", tenantId, shard.id(), -1, null);
	}

	/**
	 * @return one sentence per table and trigger of the application on the shard that the move's writes would fire
	 * ({@link io.github.shardtenancy.spi.FenceDialect#moveTriggerRefusals})
	 * @throws MoveException if the triggers cannot be read
	 */
	private List<String> triggerRefusals(String tenantId, Topology.Shard shard) {
		try (Connection c = shard.dataSource().getConnection()) {
			return shard.dialect().moveTriggerRefusals(c, this.tables.stream().map(TenantTable::table).toList());
		}
		catch (SQLException ex) {
			throw new MoveException("Cannot read the triggers of shard '" + shard.id() + "' for the move of tenant '"
					+ tenantId + "': " + ex.getMessage(), tenantId, shard.id(), -1, ex);
		}
	}

	/**
	 * Checks every table on a shard (it exists, has its tenant column and a primary key; the move refuses to start
	 * naming the first that does not) and orders them so that a table comes after the tables its foreign keys point
	 * to.
	 */
	private List<TablePlan> plan(Topology.Shard shard, String tenantId) {
		if (this.tables.isEmpty()) {
			throw noTables(tenantId, shard);
		}
		try (Connection c = shard.dataSource().getConnection()) {
			return TablePlan.plan(c, shard.dialect(), shard.id(), tenantId, this.tables);
		}
		catch (SQLException ex) {
			throw new MoveException("Cannot read the schema of shard '" + shard.id() + "' for the move of tenant '"
					+ tenantId + "': " + ex.getMessage(), tenantId, shard.id(), -1, ex);
		}
	}

}
