package io.github.shardtenancy.internal.move;

import java.time.Duration;
import java.time.Instant;

import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.TenantState;
import io.github.shardtenancy.internal.fence.FenceState;
import io.github.shardtenancy.internal.fence.ShardFence;
import io.github.shardtenancy.MoveStep;

/**
 * {@link MoveStep#FLIPPED}: one directory write (owner = target, ACTIVE, new epoch and version), then the target
 * fence OWNED and the source fence MOVED at that version, and capture off. Abort is no longer possible.
 *
 * <p>With a soak ({@link io.github.shardtenancy.MoveSettings#soak()}), change capture is first switched on for the
 * tenant on the target, while its fence there is still INCOMING (no routed write of the tenant can commit there yet):
 * so every write the target accepts after the flip is logged for the reverse catch-up. The clean then waits for the
 * soak. In a revert (source and target swapped) the directory names the move's source again, and the capture switched
 * off is the target's.
 */
final class FlipStep implements Step {

	@Override
	public void run(MoveRun run) {
		DirectoryEntry entry = run.entry();
		if (run.soaks() && run.isMoving(entry, TenantState.FROZEN)) {
			run.sql(run.to, () -> {
				ChangeCapture.captureOn(run.to, run.tenantId(), run.move.moveId(), run.plans);
				return null;
			});
		}
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
		Duration keep = run.settings.soak().compareTo(run.settings.cleanDelay()) > 0 ? run.settings.soak()
				: run.settings.cleanDelay();
		if (run.reverse) {
			// the clean of the target waits for the clean delay, as the forward clean of the source does
			run.moveLog.cleanAfter(run.move, run.owner, now.plus(run.settings.cleanDelay()));
		}
		else {
			run.moveLog.flippedAt(run.move, run.owner, now, now.plus(keep));
		}
		long fencesStarted = System.nanoTime();
		ShardFence.set(run.to, run.tenantId(), FenceState.OWNED, flipped.version());
		ShardFence.set(run.from, run.tenantId(), FenceState.MOVED, flipped.version());
		run.router.apply(flipped);
		if (run.capturesFrom()) {
			run.sql(run.from, () -> {
				ChangeCapture.captureOff(run.from, run.tenantId());
				return null;
			});
		}
		run.flipVersion = flipped.version();
		run.step(MoveStep.FLIPPED, "directory version " + flipped.version() + "; fences and capture in "
				+ (System.nanoTime() - fencesStarted) / 1_000_000 + " ms");
	}

}
