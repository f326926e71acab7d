package io.github.shardtenancy.internal.move;

import java.sql.SQLException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;

import io.github.shardtenancy.MoveException;
import io.github.shardtenancy.UnknownTenantException;
import io.github.shardtenancy.internal.directory.Directory;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.TenantState;
import io.github.shardtenancy.internal.move.MoveSql.Progress;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.MoveStatus;
import io.github.shardtenancy.MoveStep;
import io.github.shardtenancy.internal.routing.Router;
import io.github.shardtenancy.internal.topology.Topology;

/**
 * One run of one move by one mover instance: what the steps share (the move, its shards and tables, the mover's
 * collaborators) and what this run learned (whether it froze the tenant itself, the keys its final catch-up applied,
 * what it copied and at which directory versions it froze and flipped). Used by one thread at a time.
 */
final class MoveRun {

	/** How often a step in progress records its progress (its heartbeat) in the move log, at most. */
	static final Duration HEARTBEAT_INTERVAL = Duration.ofSeconds(1);

	final MoveStatus move;

	final MoveSettings settings;

	final Topology.Shard from;

	final Topology.Shard to;

	final List<TablePlan> plans;

	final Directory directory;

	final Router router;

	final MoveLog moveLog;

	final String owner;

	final String actor;

	private final Executor executor;

	/** The dual read whose registered queries the verification runs, or {@code null} for none. */
	final ShadowReads dualRead;

	/**
	 * Whether this run reverts the move: {@link #move} is then the move with source and target swapped, so that the
	 * forward steps from the freeze run from the target back to the source, and each step records its revert
	 * counterpart ({@link #step}).
	 */
	final boolean reverse;

	/** The run of the revert, made once by {@link #reversed()}. */
	private MoveRun reversed;

	/** Whether this run froze the tenant itself (then it also ran the final catch-up, and knows its keys). */
	boolean frozenHere;

	/** Whether this run ran the final catch-up after freezing the tenant itself. */
	boolean finalCaughtUpHere;

	/** The keys the final catch-up applied, per table (only filled when this run froze the tenant). */
	final Map<TablePlan, Set<String>> finalKeys = new LinkedHashMap<>();

	/** Rows copied per table by this run, in copy order; empty if another run copied. */
	Map<String, Long> copied = Map.of();

	/** The directory version of the freeze, or {@code -1} if another run froze. */
	long freezeVersion = -1;

	/** The directory version of the flip, or {@code -1} if another run flipped. */
	long flipVersion = -1;

	MoveRun(MoveStatus move, Topology topology, List<TablePlan> plans, Directory directory, Router router,
			MoveLog moveLog, String owner, String actor, Executor executor, ShadowReads dualRead) {
		this(move, topology, plans, directory, router, moveLog, owner, actor, executor, dualRead, false);
	}

	private MoveRun(MoveStatus move, Topology topology, List<TablePlan> plans, Directory directory, Router router,
			MoveLog moveLog, String owner, String actor, Executor executor, ShadowReads dualRead, boolean reverse) {
		this.reverse = reverse;
		this.move = move;
		this.settings = move.settings();
		this.from = topology.shard(move.sourceShardId());
		this.to = topology.shard(move.targetShardId());
		this.plans = plans;
		this.directory = directory;
		this.router = router;
		this.moveLog = moveLog;
		this.owner = owner;
		this.actor = actor;
		this.executor = executor;
		this.dualRead = dualRead;
	}

	/**
	 * @param topology the shards
	 * @return the run of this move's revert (made once): the same move with source and target swapped
	 */
	MoveRun reversed(Topology topology) {
		if (this.reverse) {
			return this;
		}
		if (this.reversed == null) {
			MoveStatus m = this.move;
			MoveStatus swapped = new MoveStatus(m.moveId(), m.tenantId(), m.targetShardId(), m.sourceShardId(),
					m.step(), m.stepData(), m.settings(), m.owner(), m.heartbeat(), m.createdAt(), m.frozenAt(),
					m.flippedAt(), m.finishedAt(), m.error());
			this.reversed = new MoveRun(swapped, topology, this.plans, this.directory, this.router, this.moveLog,
					this.owner, this.actor, this.executor, this.dualRead, true);
		}
		return this.reversed;
	}

	String tenantId() {
		return this.move.tenantId();
	}

	/**
	 * Records a completed step (and the heartbeat); throws if this mover lost the move. A revert's run records the
	 * revert counterpart of a forward step (FROZEN as REVERT_FROZEN, and so on).
	 */
	void step(MoveStep step, String stepData) {
		this.moveLog.step(this.move, this.owner, recorded(step), stepData);
	}

	/** Records the final step ({@link MoveStep#DONE}, or {@link MoveStep#REVERTED} in a revert's run). */
	void finish(MoveStep step, String stepData) {
		this.moveLog.finish(this.move, this.owner, recorded(step), stepData);
	}

	private MoveStep recorded(MoveStep step) {
		if (!this.reverse) {
			return step;
		}
		return switch (step) {
			case FROZEN -> MoveStep.REVERT_FROZEN;
			case FINAL_CAUGHT_UP -> MoveStep.REVERT_FINAL_CAUGHT_UP;
			case VERIFIED -> MoveStep.REVERT_VERIFIED;
			case FLIPPED -> MoveStep.REVERT_FLIPPED;
			case DONE -> MoveStep.REVERTED;
			default -> throw new IllegalStateException("No revert step for " + step);
		};
	}

	/**
	 * @return whether change capture runs on {@link #from} for the tenant until the flip: the forward online move's
	 * capture on the source, or, in a revert, the soak's capture on the target
	 */
	boolean capturesFrom() {
		return this.reverse || this.settings.capture();
	}

	/** @return whether the forward flip keeps the source and captures the target's changes for a revert */
	boolean soaks() {
		return !this.reverse && this.settings.hasSoak();
	}

	/** @return the tenant's directory entry as the directory has it now */
	DirectoryEntry entry() {
		return this.directory.find(this.move.tenantId())
			.orElseThrow(() -> new UnknownTenantException(this.move.tenantId(), this.router.version()));
	}

	/** @return whether the entry shows this move's source and target in the given state */
	boolean isMoving(DirectoryEntry entry, TenantState state) {
		return entry.state() == state && entry.shardId().equals(this.move.sourceShardId())
				&& this.move.targetShardId().equals(entry.targetShardId());
	}

	/** @return whether the entry shows the tenant ACTIVE on this move's source, not being moved */
	boolean isActiveOnSource(DirectoryEntry entry) {
		return entry.state() == TenantState.ACTIVE && entry.shardId().equals(this.move.sourceShardId())
				&& entry.targetShardId() == null;
	}

	MoveException unexpected(DirectoryEntry entry, String expected) {
		return new MoveException("Move " + this.move.moveId() + " of tenant '" + this.move.tenantId()
				+ "' expected the tenant " + expected + " '" + this.move.sourceShardId() + "' but the directory shows "
				+ entry.state() + " on shard '" + entry.shardId() + "' (target " + entry.targetShardId()
				+ ", directory version " + entry.version() + "): it was changed outside this move",
				this.move.tenantId(), entry.shardId(), entry.version(), null);
	}

	/**
	 * @return a progress callback that records progress (and so the heartbeat, and the ownership check) at most every
	 * {@link #HEARTBEAT_INTERVAL}, not after every batch: one directory write per second, not per thousand rows
	 */
	Progress heartbeat() {
		long[] last = { System.nanoTime() };
		return data -> {
			long now = System.nanoTime();
			if (now - last[0] >= HEARTBEAT_INTERVAL.toNanos()) {
				last[0] = now;
				this.moveLog.progress(this.move, this.owner, data);
			}
		};
	}

	/** @return what the work returned; its {@link SQLException} becomes a {@link MoveException} naming the shard */
	<T> T sql(Topology.Shard shard, MoveSql.SqlWork<T> work) {
		try {
			return work.run();
		}
		catch (SQLException ex) {
			throw new MoveException("Move " + this.move.moveId() + " of tenant '" + this.move.tenantId()
					+ "' failed on shard '" + shard.id() + "': " + ex.getMessage(), this.move.tenantId(), shard.id(),
					-1, ex);
		}
	}

	/**
	 * Runs two halves of one piece of work at once: {@code there} on the mover's executor, {@code here} on the calling
	 * thread. If the executor has not started {@code there} when {@code here} is done (all its threads busy, or it
	 * refused the task), the calling thread runs it too, so this never waits for a thread of a saturated executor.
	 * @return {@code {there's result, here's result}}
	 * @throws RuntimeException what either half threw ({@code there}'s first)
	 */
	Object[] both(Supplier<?> there, Supplier<?> here) {
		FutureTask<Object> task = new FutureTask<>(there::get);
		try {
			this.executor.execute(task);
		}
		catch (RejectedExecutionException ex) {
			// run below, on this thread
		}
		Object mine;
		try {
			mine = here.get();
		}
		catch (RuntimeException | Error ex) {
			task.cancel(false); // not run if the executor has not started it
			throw ex;
		}
		task.run(); // does nothing if the executor started it
		try {
			return new Object[] { task.get(), mine };
		}
		catch (ExecutionException ex) {
			throw (ex.getCause() instanceof RuntimeException runtime) ? runtime
					: new IllegalStateException(ex.getCause());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new MoveException("Interrupted while verifying move " + this.move.moveId(), this.move.tenantId(),
					this.move.targetShardId(), -1, ex);
		}
	}

}
