package io.github.shardtenancy.internal.move;

import java.util.Optional;

import io.github.shardtenancy.MoveException;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.TenantState;
import io.github.shardtenancy.internal.fence.FenceState;
import io.github.shardtenancy.internal.fence.ShardFence;
import io.github.shardtenancy.MoveStep;

/**
 * {@link MoveStep#ABORTED}: a move undone before its flip. The target's copy is removed, the entry is ACTIVE on the
 * source again (new epoch and version), the source fence OWNED and the target fence MOVED at that version, and
 * capture is off. Idempotent: an abort interrupted after restoring the directory finishes its fence work when
 * repeated.
 */
final class AbortStep {

	private final String reason;

	/** @param reason why, recorded in the move log */
	AbortStep(String reason) {
		this.reason = reason;
	}

	/** @return the entry as restored (or as found, if nothing of the move was in it) */
	DirectoryEntry run(MoveRun run) {
		MoveStep step = run.move.step();
		boolean capture = run.settings.capture();
		DirectoryEntry entry = run.entry();
		if (entry.shardId().equals(run.move.targetShardId())) {
			throw new MoveException("Move " + run.move.moveId() + " of tenant '" + run.tenantId()
					+ "' cannot be aborted: the directory already names shard '" + run.move.targetShardId()
					+ "' as owner (version " + entry.version() + "); resume it instead", run.tenantId(),
					run.move.targetShardId(), entry.version(), null);
		}
		// Online, a FROZEN entry is this move's once its freeze step may have run (after CAUGHT_UP); without
		// capture the freeze is the first step.
		boolean ours = run.isMoving(entry, TenantState.MIGRATING) || (run.isMoving(entry, TenantState.FROZEN)
				&& (!capture || step.ordinal() >= MoveStep.CAUGHT_UP.ordinal()));
		DirectoryEntry restored = entry;
		if (ours) {
			run.sql(run.to, () -> RowDeletion.deleteMoved(run.to, run.tenantId(), run.plans));
			restored = run.directory.update(run.tenantId(), entry.epoch(), run.move.sourceShardId(),
					TenantState.ACTIVE, null, run.actor);
			ShardFence.set(run.to, run.tenantId(), FenceState.MOVED, restored.version());
			ShardFence.set(run.from, run.tenantId(), FenceState.OWNED, restored.version());
		}
		else if ((step != MoveStep.PLANNED || !capture) && run.isActiveOnSource(entry)) {
			// An earlier abort restored the directory and stopped: finish its fence work.
			Optional<ShardFence.Row> target = ShardFence.get(run.to.dataSource(), run.to.id(), run.tenantId());
			if (target.isPresent() && target.get().state() == FenceState.INCOMING) {
				run.sql(run.to, () -> RowDeletion.deleteMoved(run.to, run.tenantId(), run.plans));
				ShardFence.set(run.to, run.tenantId(), FenceState.MOVED, entry.version());
			}
			Optional<ShardFence.Row> source = ShardFence.get(run.from.dataSource(), run.from.id(), run.tenantId());
			if (source.isPresent() && source.get().state() == FenceState.FROZEN) {
				ShardFence.set(run.from, run.tenantId(), FenceState.OWNED,
						entry.version());
			}
		}
		if (capture && (step != MoveStep.PLANNED || ours)) {
			run.sql(run.from, () -> {
				ChangeCapture.captureOff(run.from, run.tenantId());
				return null;
			});
		}
		if (run.settings.hasSoak() && step == MoveStep.VERIFIED) {
			// the flip of a move with a soak switches capture on on the target before its directory write
			run.sql(run.to, () -> {
				ChangeCapture.captureOff(run.to, run.tenantId());
				return null;
			});
		}
		run.router.apply(restored);
		run.moveLog.finish(run.move, run.owner, MoveStep.ABORTED, "aborted after " + step + ": " + this.reason);
		return restored;
	}

}
