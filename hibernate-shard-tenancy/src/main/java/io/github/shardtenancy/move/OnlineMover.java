package io.github.shardtenancy.move;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;

import io.github.shardtenancy.DirectoryConflictException;
import io.github.shardtenancy.DirectoryUnavailableException;
import io.github.shardtenancy.MoveException;
import io.github.shardtenancy.ShardTenancyException;
import io.github.shardtenancy.TenantIds;
import io.github.shardtenancy.UnknownShardException;
import io.github.shardtenancy.UnknownTenantException;
import io.github.shardtenancy.TenantTable;
import io.github.shardtenancy.internal.directory.Directory;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.TenantState;
import io.github.shardtenancy.internal.fence.FenceState;
import io.github.shardtenancy.internal.fence.ShardFence;
import io.github.shardtenancy.internal.move.TablePlan;
import io.github.shardtenancy.internal.move.TenantRows;
import io.github.shardtenancy.internal.routing.Router;
import io.github.shardtenancy.internal.topology.Topology;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The online, resumable move of one tenant to another shard: the tenant's writes are refused only during the final
 * catch-up, verification and flip, a crash of the process running it loses nothing (another instance resumes it),
 * and the tenant's neighbours on both shards are never touched. The steps are those of {@link MoveStep}: mark, copy,
 * catch up, freeze, final catch-up, verify, flip, clean.
 *
 * <h2>Catch-up mechanism, and why</h2>
 * While a move copies the tenant, a row trigger on each moved table of the source (installed by
 * {@link io.github.shardtenancy.spi.FenceDialect#installChangeCapture}) appends the primary key of every row of that
 * tenant written by the application to a change log on the source shard ({@code shard_change}), in the writing
 * transaction. Catch-up re-reads each logged key on the source and upserts the row on the target, or deletes it there
 * if it is gone, then deletes exactly the log entries it applied. It was chosen over logical decoding because:
 * <ul>
 * <li>it works the same on H2 and PostgreSQL, with no server settings ({@code wal_level}), replication slots or
 * privileges, and no slot left behind to fill the disk if a mover dies;</li>
 * <li>it costs nothing to other tenants: the trigger writes only for tenants listed in {@code shard_capture}, and
 * only from the mark to the flip;</li>
 * <li>applying the row's <em>current</em> state makes every application idempotent and order-insensitive per key,
 * so a crash between applying and deleting entries, a repeated round or entries committed out of sequence order are
 * all harmless: the log only has to be complete, not ordered;</li>
 * <li>it is complete by construction: capture is switched on in a transaction that also writes the tenant's fence
 * row, whose lock every fenced write holds until it ends, so each write either committed before the copy's snapshot
 * (and is copied) or sees the capture (and is logged); and the freeze waits for the writes in flight in the same way,
 * so after it the log holds every change.</li>
 * </ul>
 * The price is one extra indexed read per written row on shards with a capture trigger, and a write to the log per
 * row while the tenant is being moved. The mark step installs missing capture triggers itself (idempotently), but on
 * H2 they should be installed with the schema, next to the fence's write check: H2 2.4 can fail a write running
 * concurrently with the creation of a trigger on its table ({@code ConcurrentModificationException}).
 * <p>Unique keys other than the primary key: a round applies its deletes (children first) before its upserts (parents
 * first), so a unique value freed by a deleted row and taken by another in the same round reaches the target; a write
 * the target refuses with an integrity violation (a value moved from one row to another by updates, a child moved
 * away from a deleted parent) is retried one row at a time after the others until nothing more applies. Unique values
 * exchanged between rows within one round (a cycle) still fail the catch-up with the target's violation.
 *
 * <h2>Copy</h2>
 * The bulk copy reads one consistent snapshot of the source (all tables, parents first, so foreign keys hold on the
 * target) and commits on the target every {@link MoveOptions#batchSize()} rows, pausing {@link MoveOptions#throttle()}
 * after each batch. It streams through a {@link io.github.shardtenancy.spi.BulkCopier} when one on the class path
 * supports both shards (PostgreSQL's {@code COPY}, from {@code hibernate-shard-tenancy-postgresql}), and writes
 * multi-row {@code INSERT}s otherwise. A copy interrupted by a crash starts over when resumed (the target's partial copy is deleted
 * first): continuing from the last copied key with a second snapshot could copy a child row whose parent is in
 * neither snapshot's part of the copy.
 *
 * <h2>Verification, and what the freeze costs</h2>
 * The last catch-up round before the freeze verifies the whole copy: after applying the changes in its snapshot, the
 * target must equal the source in that snapshot (row count and checksum of every table; computed by each database on
 * PostgreSQL, source and target in parallel). Inside the freeze, the final catch-up applies the changes logged since,
 * and the verification compares the row counts and, value by value, only the rows it changed: the freeze costs in
 * proportion to the final lag, which {@link MoveOptions#catchUpLagThreshold()} keeps small, not to the tenant's size.
 * A move resumed after the freeze verifies every row again (it cannot know which rows an earlier mover's final
 * catch-up changed).
 *
 * <h2>Crash safety and locking</h2>
 * Each move is a row of the move log ({@code shard_move}) in the directory database, recording the last step it
 * completed. Every step is idempotent (a directory write is skipped if the entry already shows it, fence writes are
 * plain sets, the copy starts over, catch-up re-applies), so {@link #resume(String)} continues from the recorded step
 * after a crash at any point. A tenant has at most one unfinished move: a unique index on the move log refuses a
 * second one in any process ({@link MoveInProgressException}), and every directory write is conditional on the
 * entry's epoch, which also guards against the basic {@link io.github.shardtenancy.admin.TenantMover}. The move log
 * row names its owner; a mover takes a move over only when the owner's heartbeat (written with every batch and step)
 * is older than the lease, and stops at its next write if it lost the move.
 *
 * <h2>Failures</h2>
 * A failure before the flip aborts the move (see {@link #abort(String)}) and is rethrown as a {@link MoveException};
 * if the abort fails too, the move is left for {@link #resume(String)} or {@link #abort(String)}. A failure after the
 * flip leaves the move at its step for {@link #resume(String)}. An {@link Error} (a crash, or a {@link MoveHook}
 * simulating one) leaves everything as it is.
 *
 * <p>Thread-safe; moves of different tenants may run at once, each on its caller's thread.
 */
public class OnlineMover {

	private static final Logger log = LoggerFactory.getLogger(OnlineMover.class);

	/** Runs the source's half of a verification while the mover's thread runs the target's. */
	private static final Executor VERIFIERS = Executors.newCachedThreadPool(runnable -> {
		Thread thread = new Thread(runnable, "shard-tenancy-move-verify");
		thread.setDaemon(true);
		return thread;
	});

	/** How often a step in progress records its progress (its heartbeat) in the move log, at most. */
	static final Duration HEARTBEAT_INTERVAL = Duration.ofSeconds(1);

	/** Default time after which another mover may take over a move whose owner stopped writing. */
	public static final Duration DEFAULT_LEASE = Duration.ofSeconds(30);

	private final Directory directory;

	private final Router router;

	private final Topology topology;

	private final List<TenantTable> tables;

	private final String actor;

	private final String owner;

	private final Duration lease;

	private final MoveHook hook;

	private final MoveLog moveLog;

	/**
	 * @param directory the directory (its database holds the move log)
	 * @param router the local router, updated at once after each directory write of a move
	 * @param topology the shards
	 * @param tables the tenant tables to move, in any order (sorted by foreign keys); if empty, every move is refused
	 * with a {@link MoveException} (a move that copied nothing would lose the tenant's data)
	 * @param actor who moves, recorded in the directory history (e.g. {@code mover@host})
	 * @throws NullPointerException if an argument is {@code null}
	 */
	public OnlineMover(Directory directory, Router router, Topology topology, List<TenantTable> tables,
			String actor) {
		this(directory, router, topology, tables, actor, DEFAULT_LEASE, MoveHook.NONE);
	}

	private OnlineMover(Directory directory, Router router, Topology topology, List<TenantTable> tables,
			String actor, Duration lease, MoveHook hook) {
		this.directory = Objects.requireNonNull(directory, "directory");
		this.router = Objects.requireNonNull(router, "router");
		this.topology = Objects.requireNonNull(topology, "topology");
		this.tables = List.copyOf(tables);
		this.actor = Objects.requireNonNull(actor, "actor");
		this.lease = Objects.requireNonNull(lease, "lease");
		this.hook = Objects.requireNonNull(hook, "hook");
		this.owner = actor + "/" + UUID.randomUUID();
		this.moveLog = new MoveLog(directory.dataSource());
	}

	/**
	 * @param value how long a move's owner may stay silent before this mover takes the move over, {@code >= 0}
	 * @return a new mover instance (a new owner identity) with that lease
	 */
	public OnlineMover withLease(Duration value) {
		if (value.isNegative()) {
			throw new IllegalArgumentException("lease must not be negative: " + value);
		}
		return new OnlineMover(this.directory, this.router, this.topology, this.tables, this.actor, value, this.hook);
	}

	/**
	 * @param value the router to keep up to date after each directory write of a move, instead of this mover's (for
	 * example the router of a mover acting as a separate application instance); not {@code null}
	 * @return a new mover instance (a new owner identity) with that router
	 */
	public OnlineMover withRouter(Router value) {
		return new OnlineMover(this.directory, value, this.topology, this.tables, this.actor, this.lease, this.hook);
	}

	/**
	 * @param value called after each recorded step
	 * @return a new mover instance (a new owner identity) with that hook
	 */
	public OnlineMover withHook(MoveHook value) {
		return new OnlineMover(this.directory, this.router, this.topology, this.tables, this.actor, this.lease, value);
	}

	/** @return this instance's owner identity in the move log ({@code actor/uuid}) */
	public String owner() {
		return this.owner;
	}

	/**
	 * Moves a tenant to another shard and returns when the move is DONE, or FLIPPED if
	 * {@link MoveOptions#cleanDelay()} is not zero. Blocks the calling thread for the whole move.
	 * @param tenantId the tenant, ACTIVE
	 * @param targetShardId the new owner, in the topology
	 * @param options how to move
	 * @return the move id
	 * @throws UnknownTenantException if the directory has no entry for the tenant
	 * @throws UnknownShardException if either shard is not in the topology
	 * @throws MoveInProgressException if the tenant has an unfinished move
	 * @throws MoveException if the tenant is not ACTIVE, the target is its owner, a table is missing or lacks its
	 * tenant column or primary key (named in the message), the shard has no change capture, or a step failed (the
	 * move was then aborted before the flip, or left for {@link #resume(String)} after it)
	 * @throws DirectoryConflictException if the entry changed concurrently before the move was recorded
	 * @throws DirectoryUnavailableException if the directory cannot be read or written
	 */
	public String move(String tenantId, String targetShardId, MoveOptions options) {
		TenantIds.requireValid(tenantId);
		Objects.requireNonNull(targetShardId, "targetShardId");
		Objects.requireNonNull(options, "options");
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
		Topology.Shard from = this.topology.shard(source);
		Topology.Shard to = this.topology.shard(targetShardId);
		List<TablePlan> plans = plan(from, tenantId);
		plan(to, tenantId);
		String moveId = UUID.randomUUID().toString();
		if (!this.moveLog.insert(moveId, tenantId, source, targetShardId, options, this.owner)) {
			throw this.moveLog.findActive(tenantId).map(row -> inProgress(entry, row.status()))
				.orElseGet(() -> new MoveInProgressException("Tenant '" + tenantId + "' on shard '" + source
						+ "' (directory version " + entry.version() + ") had an unfinished move when this one was "
						+ "recorded", tenantId, source, entry.version(), null));
		}
		log.info("Move {} of tenant '{}' from '{}' to '{}' started ({})", moveId, tenantId, source, targetShardId,
				options);
		this.hook.stepRecorded(moveId, MoveStep.PLANNED);
		run(require(moveId), plans, false);
		return moveId;
	}

	/**
	 * Continues a move from its last recorded step: after a crash of the mover that ran it, after a failure, or to
	 * clean the source once the clean delay has passed.
	 * @param moveId the move
	 * @return the move's status afterwards (DONE, or FLIPPED while the clean delay runs)
	 * @throws MoveException if the move is unknown, or a step failed (see {@link #move})
	 * @throws MoveInProgressException if another mover holds the move and its heartbeat is within the lease
	 * @throws DirectoryUnavailableException if the directory cannot be read or written
	 */
	public MoveStatus resume(String moveId) {
		MoveStatus move = require(moveId);
		if (move.isFinished()) {
			return move;
		}
		claim(move);
		return run(require(moveId), plan(this.topology.shard(move.sourceShardId()), move.tenantId()), false);
	}

	/**
	 * Cleans the source of a flipped move now, whatever its clean delay.
	 * @param moveId the move
	 * @return the status afterwards (DONE)
	 * @throws MoveException if the move is unknown or not flipped yet, or the clean fails
	 * @throws MoveInProgressException if another live mover holds the move
	 */
	public MoveStatus clean(String moveId) {
		MoveStatus move = require(moveId);
		if (move.step() == MoveStep.DONE) {
			return move;
		}
		if (move.step() != MoveStep.FLIPPED) {
			throw new MoveException("Move " + moveId + " of tenant '" + move.tenantId() + "' is at step "
					+ move.step() + "; only a FLIPPED move can be cleaned", move.tenantId(), move.sourceShardId(), -1,
					null);
		}
		claim(move);
		return run(require(moveId), plan(this.topology.shard(move.sourceShardId()), move.tenantId()), true);
	}

	/**
	 * Aborts a move before its flip: the target's copy is removed, the entry is ACTIVE on the source again (new epoch
	 * and version), the source fence OWNED and the target fence MOVED at that version, and capture is off. Writes the
	 * freeze refused meanwhile were retried by their callers; nothing committed is lost.
	 * @param moveId the move
	 * @return the status afterwards (ABORTED)
	 * @throws MoveException if the move is unknown or already flipped, or a step of the abort failed (it can be
	 * repeated)
	 * @throws MoveInProgressException if another live mover holds the move
	 */
	public MoveStatus abort(String moveId) {
		MoveStatus move = require(moveId);
		if (move.step() == MoveStep.ABORTED) {
			return move;
		}
		if (move.step().isFlipped()) {
			throw new MoveException("Move " + moveId + " of tenant '" + move.tenantId() + "' is already " + move.step()
					+ ": the tenant lives on shard '" + move.targetShardId() + "'; move it back instead",
					move.tenantId(), move.targetShardId(), -1, null);
		}
		claim(move);
		try {
			doAbort(require(moveId), plan(this.topology.shard(move.sourceShardId()), move.tenantId()), "on command");
		}
		catch (MoveLog.OwnershipLostException ex) {
			throw ex;
		}
		catch (RuntimeException ex) {
			this.moveLog.release(moveId, this.owner, "abort failed: " + ex.getMessage());
			throw ex;
		}
		return require(moveId);
	}

	/**
	 * @param moveId the move
	 * @return its status as recorded
	 * @throws MoveException if the move is unknown
	 * @throws DirectoryUnavailableException if the directory cannot be read
	 */
	public MoveStatus status(String moveId) {
		return require(moveId);
	}

	/**
	 * @param tenantId the tenant
	 * @return its unfinished move, if any
	 * @throws DirectoryUnavailableException if the directory cannot be read
	 */
	public Optional<MoveStatus> findActive(String tenantId) {
		return this.moveLog.findActive(tenantId).map(MoveLog.Row::status);
	}

	private MoveStatus run(MoveStatus move, List<TablePlan> plans, boolean cleanNow) {
		Topology.Shard from = this.topology.shard(move.sourceShardId());
		Topology.Shard to = this.topology.shard(move.targetShardId());
		MoveStep step = move.step();
		FreezeDelta delta = new FreezeDelta();
		try {
			while (!step.isFinal()) {
				long stepStarted = System.nanoTime();
				switch (step) {
					case PLANNED -> mark(move, from, to);
					case MARKED -> copy(move, from, to, plans);
					case COPIED -> catchUp(move, from, to, plans);
					case CAUGHT_UP -> {
						freeze(move, from);
						delta.frozenHere = true;
					}
					case FROZEN -> finalCatchUp(move, from, to, plans, delta);
					case FINAL_CAUGHT_UP -> verify(move, from, to, plans, delta);
					case VERIFIED -> flip(move, from, to);
					case FLIPPED -> {
						Instant cleanAfter = this.moveLog.find(move.moveId()).map(MoveLog.Row::cleanAfter).orElse(null);
						if (!cleanNow && cleanAfter != null && Instant.now().isBefore(cleanAfter)) {
							this.moveLog.step(move, this.owner, MoveStep.FLIPPED, "clean after " + cleanAfter);
							this.moveLog.release(move.moveId(), this.owner, null);
							return require(move.moveId());
						}
						clean(move, from, plans);
					}
					default -> throw new IllegalStateException("unreachable: " + step);
				}
				MoveStatus recorded = require(move.moveId());
				step = recorded.step();
				if (step == MoveStep.FLIPPED && recorded.flippedAt() != null) {
					this.router.observer().moveFlipped("online", move.sourceShardId(), move.targetShardId(),
							Duration.between(recorded.createdAt(), recorded.flippedAt()).toNanos(),
							recorded.freezeWindow().map(Duration::toNanos).orElse(0L));
				}
				log.info("Move {} of tenant '{}': {} in {} ms ({})", move.moveId(), move.tenantId(), step,
						(System.nanoTime() - stepStarted) / 1_000_000, recorded.stepData());
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
			throw fail(move, step, plans, ex);
		}
	}

	private RuntimeException fail(MoveStatus move, MoveStep step, List<TablePlan> plans, RuntimeException ex) {
		String what = "Move " + move.moveId() + " of tenant '" + move.tenantId() + "' from '" + move.sourceShardId()
				+ "' to '" + move.targetShardId() + "' failed after step " + step + ": " + ex.getMessage();
		if (!step.isFlipped()) {
			try {
				doAbort(require(move.moveId()), plans, what);
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

	private void mark(MoveStatus move, Topology.Shard from, Topology.Shard to) {
		DirectoryEntry entry = entry(move);
		DirectoryEntry marked;
		if (isMoving(entry, move, TenantState.MIGRATING)) {
			marked = entry;
		}
		else if (entry.state() == TenantState.ACTIVE && entry.shardId().equals(move.sourceShardId())
				&& entry.targetShardId() == null) {
			marked = this.directory.update(move.tenantId(), entry.epoch(), move.sourceShardId(), TenantState.MIGRATING,
					move.targetShardId(), this.actor);
		}
		else {
			throw unexpected(move, entry, "ACTIVE on the source");
		}
		this.router.apply(marked);
		sql(move, from, () -> TenantRows.captureOn(from, move.tenantId(), move.moveId(), plan(from, move.tenantId())));
		ShardFence.set(to.dataSource(), to.id(), move.tenantId(), FenceState.INCOMING, marked.version());
		this.moveLog.step(move, this.owner, MoveStep.MARKED, "directory version " + marked.version());
	}

	private void copy(MoveStatus move, Topology.Shard from, Topology.Shard to, List<TablePlan> plans) {
		MoveOptions options = move.options();
		long started = System.nanoTime();
		Map<String, Long> copied = sql(move, to, () -> {
			TenantRows.delete(to, move.tenantId(), plans);
			return TenantRows.copy(from, to, move.tenantId(), plans, options.batchSize(), options.throttle(),
					heartbeat(move));
		});
		long rows = copied.values().stream().mapToLong(Long::longValue).sum();
		long ms = Math.max(1, (System.nanoTime() - started) / 1_000_000);
		String method = sql(move, to, () -> TenantRows.copyMethod(from, to));
		this.moveLog.step(move, this.owner, MoveStep.COPIED, "rows=" + rows + " tables=" + copied + " ms=" + ms
				+ " rowsPerSecond=" + (rows * 1000 / ms) + " via " + method);
	}

	private void catchUp(MoveStatus move, Topology.Shard from, Topology.Shard to, List<TablePlan> plans) {
		MoveOptions options = move.options();
		long lag = -1;
		int round = 0;
		while (round < options.maxCatchUpRounds()) {
			round++;
			lag = sql(move, from, () -> TenantRows.catchUpRound(from, to, move.tenantId(), plans, options.batchSize(),
					options.throttle(), heartbeat(move)));
			this.moveLog.progress(move, this.owner, "catch-up round=" + round + " lag=" + lag);
			if (lag <= options.catchUpLagThreshold()) {
				break;
			}
		}
		// One more round that also verifies, in its own snapshot: once it has applied that snapshot's changes, the
		// target must equal the source in that snapshot (row count and checksum of every table). The freeze then
		// only has to verify the rows its final catch-up touches (see verify).
		long[] verifiedRows = new long[1];
		lag = sql(move, from, () -> TenantRows.catchUpRound(from, to, move.tenantId(), plans, options.batchSize(),
				options.throttle(), heartbeat(move),
				source -> verifiedRows[0] = verifySnapshot(move, source, from, to, plans), null));
		this.moveLog.step(move, this.owner, MoveStep.CAUGHT_UP,
				"rounds=" + (round + 1) + " lag=" + lag + " verified rows=" + verifiedRows[0]);
	}

	/**
	 * @return a progress callback that records progress (and so the heartbeat, and the ownership check) at most every
	 * {@link #HEARTBEAT_INTERVAL}, not after every batch: one directory write per second, not per thousand rows
	 */
	private TenantRows.Progress heartbeat(MoveStatus move) {
		long[] last = { System.nanoTime() };
		return data -> {
			long now = System.nanoTime();
			if (now - last[0] >= HEARTBEAT_INTERVAL.toNanos()) {
				last[0] = now;
				this.moveLog.progress(move, this.owner, data);
			}
		};
	}

	private void freeze(MoveStatus move, Topology.Shard from) {
		DirectoryEntry entry = entry(move);
		DirectoryEntry frozen;
		if (isMoving(entry, move, TenantState.FROZEN)) {
			frozen = entry;
		}
		else if (isMoving(entry, move, TenantState.MIGRATING)) {
			frozen = this.directory.update(move.tenantId(), entry.epoch(), move.sourceShardId(), TenantState.FROZEN,
					move.targetShardId(), this.actor);
		}
		else {
			throw unexpected(move, entry, "MIGRATING on the source");
		}
		this.moveLog.frozenAt(move, this.owner, Instant.now());
		this.router.apply(frozen);
		ShardFence.set(from.dataSource(), from.id(), move.tenantId(), FenceState.FROZEN, frozen.version());
		this.moveLog.step(move, this.owner, MoveStep.FROZEN, "directory version " + frozen.version());
	}

	private void finalCatchUp(MoveStatus move, Topology.Shard from, Topology.Shard to,
			List<TablePlan> plans, FreezeDelta delta) {
		MoveOptions options = move.options();
		long lag = -1;
		// The keys are collected only if this run froze the tenant itself: otherwise earlier rounds of this step, in
		// a mover that crashed, may have applied (and deleted) entries this run never sees.
		Map<TablePlan, Set<String>> applied = delta.frozenHere ? delta.keys : null;
		for (int round = 1; round <= 1000 && lag != 0; round++) {
			lag = sql(move, from, () -> TenantRows.catchUpRound(from, to, move.tenantId(), plans, options.batchSize(),
					Duration.ZERO, heartbeat(move), null, applied));
		}
		delta.finalCaughtUpHere = delta.frozenHere;
		if (lag != 0) {
			throw new MoveException("The change log of tenant '" + move.tenantId() + "' on shard '" + from.id()
					+ "' still holds " + lag + " entries after the freeze", move.tenantId(), from.id(), -1, null);
		}
		this.moveLog.step(move, this.owner, MoveStep.FINAL_CAUGHT_UP, "lag=0");
	}

	/**
	 * What this run of a move knows about its freeze: whether it froze the tenant and ran the final catch-up itself,
	 * and the keys that catch-up applied. Only then can verification inside the freeze be limited to those keys.
	 */
	private static final class FreezeDelta {

		boolean frozenHere;

		boolean finalCaughtUpHere;

		final Map<TablePlan, Set<String>> keys = new LinkedHashMap<>();

	}

	/**
	 * The full verification of the catch-up step, on the source connection of its last round (still in that round's
	 * snapshot) against the target (which holds that snapshot's state: only the mover writes it).
	 * @return rows verified
	 * @throws MoveException on a mismatch, naming the table
	 */
	private long verifySnapshot(MoveStatus move, Connection source, Topology.Shard from, Topology.Shard to,
			List<TablePlan> plans) throws SQLException {
		boolean inDatabase = TenantRows.inDatabaseChecksum(from, to);
		long rows = 0;
		for (TablePlan table : plans) {
			CompletableFuture<long[]> targetCheck = CompletableFuture.supplyAsync(() -> sql(move, to,
					() -> TenantRows.countAndChecksum(to, table, move.tenantId(), inDatabase)), VERIFIERS);
			long[] sourceSums = TenantRows.countAndChecksum(source, inDatabase ? from.dialect() : null, table,
					move.tenantId());
			long[] target = join(targetCheck);
			requireEqual(move, from, to, table, sourceSums, target, " (before the freeze)");
			rows += sourceSums[0];
		}
		return rows;
	}

	private static <T> T join(CompletableFuture<T> future) {
		try {
			return future.join();
		}
		catch (CompletionException ex) {
			throw (ex.getCause() instanceof RuntimeException runtime) ? runtime : ex;
		}
	}

	private static void requireEqual(MoveStatus move, Topology.Shard from, Topology.Shard to,
			TablePlan table, long[] source, long[] target, String when) {
		if (source[0] != target[0] || source[1] != target[1]) {
			throw new MoveException("Verification of tenant '" + move.tenantId() + "' failed for table "
					+ table.sqlName() + when + ": source '" + from.id() + "' has " + source[0] + " rows (checksum "
					+ source[1] + "), target '" + to.id() + "' has " + target[0] + " rows (checksum " + target[1]
					+ ")", move.tenantId(), to.id(), -1, null);
		}
	}

	/**
	 * Verifies inside the freeze. When this run froze the tenant and ran the final catch-up itself, the target was
	 * verified equal to the source in the catch-up step's last snapshot, and every change since then has a change-log
	 * entry that the final catch-up applied: then the row counts of every table and the rows of the keys the final
	 * catch-up applied are compared, value by value, which costs in proportion to the final lag, not to the tenant's
	 * size. Otherwise (a resumed move) every row is checked, as count and checksum per table.
	 */
	private void verify(MoveStatus move, Topology.Shard from, Topology.Shard to, List<TablePlan> plans,
			FreezeDelta delta) {
		if (delta.finalCaughtUpHere) {
			long rows = 0;
			int keys = 0;
			for (TablePlan table : plans) {
				CompletableFuture<Long> sourceCount = CompletableFuture.supplyAsync(
						() -> sql(move, from, () -> TenantRows.count(from, table, move.tenantId())), VERIFIERS);
				long targetCount = sql(move, to, () -> TenantRows.count(to, table, move.tenantId()));
				long count = join(sourceCount);
				if (count != targetCount) {
					throw new MoveException("Verification of tenant '" + move.tenantId() + "' failed for table "
							+ table.sqlName() + ": source '" + from.id() + "' has " + count + " rows, target '"
							+ to.id() + "' has " + targetCount, move.tenantId(), to.id(), -1, null);
				}
				Set<String> changed = delta.keys.getOrDefault(table, Set.of());
				String difference = sql(move, from,
						() -> TenantRows.compareRows(from, to, table, changed, move.tenantId()));
				if (difference != null) {
					throw new MoveException("Verification of tenant '" + move.tenantId() + "' failed for table "
							+ table.sqlName() + " between source '" + from.id() + "' and target '" + to.id() + "': "
							+ difference, move.tenantId(), to.id(), -1, null);
				}
				rows += count;
				keys += changed.size();
			}
			this.moveLog.step(move, this.owner, MoveStep.VERIFIED,
					"rows=" + rows + " (counts, and the " + keys + " rows changed since the catch-up's verification)");
			return;
		}
		verifyAll(move, from, to, plans);
	}

	private void verifyAll(MoveStatus move, Topology.Shard from, Topology.Shard to, List<TablePlan> plans) {
		long rows = 0;
		// Inside the freeze: the source and the target are checked at the same time, and on PostgreSQL each database
		// computes its count and checksum itself instead of sending every row (see TenantRows.inDatabaseChecksum).
		boolean inDatabase = TenantRows.inDatabaseChecksum(from, to);
		for (TablePlan table : plans) {
			CompletableFuture<long[]> sourceCheck = CompletableFuture.supplyAsync(() -> sql(move, from,
					() -> TenantRows.countAndChecksum(from, table, move.tenantId(), inDatabase)), VERIFIERS);
			long[] target = sql(move, to, () -> TenantRows.countAndChecksum(to, table, move.tenantId(), inDatabase));
			long[] source;
			try {
				source = sourceCheck.join();
			}
			catch (CompletionException ex) {
				throw (ex.getCause() instanceof RuntimeException runtime) ? runtime : ex;
			}
			if (source[0] != target[0] || source[1] != target[1]) {
				throw new MoveException("Verification of tenant '" + move.tenantId() + "' failed for table "
						+ table.sqlName() + ": source '" + from.id() + "' has " + source[0] + " rows (checksum "
						+ source[1] + "), target '" + to.id() + "' has " + target[0] + " rows (checksum " + target[1]
						+ ")", move.tenantId(), to.id(), -1, null);
			}
			rows += source[0];
		}
		this.moveLog.step(move, this.owner, MoveStep.VERIFIED, "rows=" + rows);
	}

	private void flip(MoveStatus move, Topology.Shard from, Topology.Shard to) {
		DirectoryEntry entry = entry(move);
		DirectoryEntry flipped;
		if (entry.state() == TenantState.ACTIVE && entry.shardId().equals(move.targetShardId())
				&& entry.targetShardId() == null) {
			flipped = entry;
		}
		else if (isMoving(entry, move, TenantState.FROZEN)) {
			flipped = this.directory.update(move.tenantId(), entry.epoch(), move.targetShardId(), TenantState.ACTIVE,
					null, this.actor);
		}
		else {
			throw unexpected(move, entry, "FROZEN on the source");
		}
		Instant now = Instant.now();
		this.moveLog.flippedAt(move, this.owner, now, now.plus(move.options().cleanDelay()));
		ShardFence.set(to.dataSource(), to.id(), move.tenantId(), FenceState.OWNED, flipped.version());
		ShardFence.set(from.dataSource(), from.id(), move.tenantId(), FenceState.MOVED, flipped.version());
		this.router.apply(flipped);
		sql(move, from, () -> {
			TenantRows.captureOff(from, move.tenantId());
			return null;
		});
		this.moveLog.step(move, this.owner, MoveStep.FLIPPED, "directory version " + flipped.version());
	}

	private void clean(MoveStatus move, Topology.Shard from, List<TablePlan> plans) {
		Optional<ShardFence.Row> fence = ShardFence.get(from.dataSource(), from.id(), move.tenantId());
		if (fence.isPresent() && fence.get().state() != FenceState.MOVED) {
			throw new MoveException("Refusing to clean tenant '" + move.tenantId() + "' from shard '" + from.id()
					+ "': its fence there is " + fence.get().state() + " (minimum directory version "
					+ fence.get().minVersion() + "), not MOVED", move.tenantId(), from.id(), fence.get().minVersion(),
					null);
		}
		long deleted = sql(move, from, () -> {
			// No fence lock here (it deadlocked against writers on H2): a move of this tenant back to this shard
			// cannot start before this move is DONE, because the move log admits one unfinished move per tenant.
			long rows = TenantRows.delete(from, move.tenantId(), plans);
			TenantRows.captureOff(from, move.tenantId());
			return rows;
		});
		this.moveLog.finish(move, this.owner, MoveStep.DONE, "deleted " + deleted + " rows from '" + from.id() + "'");
	}

	private void doAbort(MoveStatus move, List<TablePlan> plans, String reason) {
		Topology.Shard from = this.topology.shard(move.sourceShardId());
		Topology.Shard to = this.topology.shard(move.targetShardId());
		DirectoryEntry entry = entry(move);
		if (entry.shardId().equals(move.targetShardId())) {
			throw new MoveException("Move " + move.moveId() + " of tenant '" + move.tenantId()
					+ "' cannot be aborted: the directory already names shard '" + move.targetShardId()
					+ "' as owner (version " + entry.version() + "); resume it instead", move.tenantId(),
					move.targetShardId(), entry.version(), null);
		}
		boolean ours = entry.shardId().equals(move.sourceShardId())
				&& move.targetShardId().equals(entry.targetShardId())
				&& (entry.state() == TenantState.MIGRATING || (entry.state() == TenantState.FROZEN
						&& move.step().ordinal() >= MoveStep.CAUGHT_UP.ordinal()));
		DirectoryEntry restored = entry;
		if (ours) {
			sql(move, to, () -> TenantRows.delete(to, move.tenantId(), plans));
			restored = this.directory.update(move.tenantId(), entry.epoch(), move.sourceShardId(), TenantState.ACTIVE,
					null, this.actor);
			ShardFence.set(to.dataSource(), to.id(), move.tenantId(), FenceState.MOVED, restored.version());
			ShardFence.set(from.dataSource(), from.id(), move.tenantId(), FenceState.OWNED, restored.version());
		}
		else if (move.step() != MoveStep.PLANNED && entry.state() == TenantState.ACTIVE
				&& entry.shardId().equals(move.sourceShardId())) {
			// An earlier abort restored the directory and stopped: finish its fence work.
			Optional<ShardFence.Row> target = ShardFence.get(to.dataSource(), to.id(), move.tenantId());
			if (target.isPresent() && target.get().state() == FenceState.INCOMING) {
				sql(move, to, () -> TenantRows.delete(to, move.tenantId(), plans));
				ShardFence.set(to.dataSource(), to.id(), move.tenantId(), FenceState.MOVED, entry.version());
			}
			Optional<ShardFence.Row> source = ShardFence.get(from.dataSource(), from.id(), move.tenantId());
			if (source.isPresent() && source.get().state() == FenceState.FROZEN) {
				ShardFence.set(from.dataSource(), from.id(), move.tenantId(), FenceState.OWNED, entry.version());
			}
		}
		if (move.step() != MoveStep.PLANNED || ours) {
			sql(move, from, () -> {
				TenantRows.captureOff(from, move.tenantId());
				return null;
			});
		}
		this.router.apply(restored);
		this.moveLog.finish(move, this.owner, MoveStep.ABORTED, "aborted after " + move.step() + ": " + reason);
		log.info("Move {} of tenant '{}' aborted after step {}; tenant {} on '{}' (directory version {})",
				move.moveId(), move.tenantId(), move.step(), restored.state(), restored.shardId(), restored.version());
	}

	private boolean isMoving(DirectoryEntry entry, MoveStatus move, TenantState state) {
		return entry.state() == state && entry.shardId().equals(move.sourceShardId())
				&& move.targetShardId().equals(entry.targetShardId());
	}

	private DirectoryEntry entry(MoveStatus move) {
		return this.directory.find(move.tenantId())
			.orElseThrow(() -> new UnknownTenantException(move.tenantId(), this.router.version()));
	}

	private static MoveException unexpected(MoveStatus move, DirectoryEntry entry, String expected) {
		return new MoveException("Move " + move.moveId() + " of tenant '" + move.tenantId() + "' expected the tenant "
				+ expected + " '" + move.sourceShardId() + "' but the directory shows " + entry.state()
				+ " on shard '" + entry.shardId() + "' (target " + entry.targetShardId() + ", directory version "
				+ entry.version() + "): it was changed outside this move", move.tenantId(), entry.shardId(),
				entry.version(), null);
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

	private MoveStatus require(String moveId) {
		Objects.requireNonNull(moveId, "moveId");
		return this.moveLog.find(moveId).map(MoveLog.Row::status)
			.orElseThrow(() -> new MoveException("No move with id " + moveId, null, null, -1, null));
	}

	private static MoveInProgressException inProgress(DirectoryEntry entry, MoveStatus active) {
		return new MoveInProgressException("Tenant '" + entry.tenantId() + "' (" + entry.state() + " on shard '"
				+ entry.shardId() + "', directory version " + entry.version() + ") is already being moved to '"
				+ active.targetShardId() + "' by move " + active.moveId() + " (step " + active.step() + ")",
				entry.tenantId(), entry.shardId(), entry.version(), active.moveId());
	}

	private List<TablePlan> plan(Topology.Shard shard, String tenantId) {
		if (this.tables.isEmpty()) {
			throw new MoveException("The online mover has no tenant tables, so it cannot move tenant '" + tenantId
					+ "' from or to shard '" + shard.id() + "': configure them (shard-tenancy.tenant-tables) or map "
					+ "the entities with @TenantId", tenantId, shard.id(), -1, null);
		}
		try (Connection c = shard.dataSource().getConnection()) {
			return TablePlan.plan(c, shard.id(), tenantId, this.tables);
		}
		catch (SQLException ex) {
			throw new MoveException("Cannot read the schema of shard '" + shard.id() + "' for the move of tenant '"
					+ tenantId + "': " + ex.getMessage(), tenantId, shard.id(), -1, ex);
		}
	}

	@FunctionalInterface
	private interface SqlWork<T> {

		T run() throws SQLException;

	}

	private static <T> T sql(MoveStatus move, Topology.Shard shard, SqlWork<T> work) {
		try {
			return work.run();
		}
		catch (SQLException ex) {
			throw new MoveException("Move " + move.moveId() + " of tenant '" + move.tenantId() + "' failed on shard '"
					+ shard.id() + "': " + ex.getMessage(), move.tenantId(), shard.id(), -1, ex);
		}
	}

	private static void sql(MoveStatus move, Topology.Shard shard, VoidSqlWork work) {
		sql(move, shard, () -> {
			work.run();
			return null;
		});
	}

	@FunctionalInterface
	private interface VoidSqlWork {

		void run() throws SQLException;

	}

}
