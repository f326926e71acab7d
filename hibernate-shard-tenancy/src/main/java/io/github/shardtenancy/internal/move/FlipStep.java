package io.github.shardtenancy.internal.move;

import java.time.Instant;

import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.TenantState;
import io.github.shardtenancy.internal.fence.FenceState;
import io.github.shardtenancy.internal.fence.ShardFence;
import io.github.shardtenancy.MoveStep;

/**
 * {@link MoveStep#FLIPPED}: one directory write (owner = target, ACTIVE, new epoch and version), then the target
 * fence OWNED and the source fence MOVED at that version, and capture off. Abort is no longer possible.
 */
final class FlipStep implements Step {

	@Override
	public void run(MoveRun run) {
		DirectoryEntry entry = run.entry();
		DirectoryEntry flipped;
		if (entry.state() == TenantState.ACTIVE && entry.shardId().equals(run.move.targetShardId())
				&& entry.targetShardId() == null) {
			flipped = entry;
		}
		else if (run.isMoving(entry, TenantState.FROZEN)) {
			flipped = run.directory.update(run.tenantId(), entry.epoch(), run.move.targetShardId(), TenantState.ACTIVE,
					null, run.actor);
		}
		else {
			throw run.unexpected(entry, "FROZEN on the source");
		}
		Instant now = Instant.now();
		run.moveLog.flippedAt(run.move, run.owner, now, now.plus(run.settings.cleanDelay()));
		ShardFence.set(run.to, run.tenantId(), FenceState.OWNED, flipped.version());
		ShardFence.set(run.from, run.tenantId(), FenceState.MOVED, flipped.version());
		run.router.apply(flipped);
		if (run.settings.capture()) {
			run.sql(run.from, () -> {
				ChangeCapture.captureOff(run.from, run.tenantId());
				return null;
			});
		}
		run.flipVersion = flipped.version();
		run.step(MoveStep.FLIPPED, "directory version " + flipped.version());
	}

}
