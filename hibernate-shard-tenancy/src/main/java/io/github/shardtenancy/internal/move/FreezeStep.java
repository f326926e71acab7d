package io.github.shardtenancy.internal.move;

import java.time.Instant;

import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.TenantState;
import io.github.shardtenancy.internal.fence.FenceState;
import io.github.shardtenancy.internal.fence.ShardFence;
import io.github.shardtenancy.MoveStep;

/**
 * {@link MoveStep#FROZEN}: the directory entry FROZEN, then the source fence FROZEN at that version, which waits for
 * the tenant's writes in flight and refuses later ones. Online, the tenant was MIGRATING; without capture it was
 * ACTIVE and this first step also sets the target fence INCOMING. In a revert (source and target swapped) the tenant
 * is ACTIVE on the move's target, which is frozen, and the move's source fence becomes INCOMING.
 */
final class FreezeStep implements Step {

	@Override
	public void run(MoveRun run) {
		// A revert freezes the tenant ACTIVE on the move's target (its run's source), which was never MIGRATING, as the
		// move without capture does.
		boolean capture = run.settings.capture() && !run.reverse;
		DirectoryEntry entry = run.entry();
		DirectoryEntry frozen;
		if (run.isMoving(entry, TenantState.FROZEN)) {
			frozen = entry;
		}
		else if (capture ? run.isMoving(entry, TenantState.MIGRATING) : run.isActiveOnSource(entry)) {
			frozen = run.directory.update(run.tenantId(), entry.epoch(), run.move.sourceShardId(), TenantState.FROZEN,
					run.move.targetShardId(), run.actor);
		}
		else {
			throw run.unexpected(entry, capture ? "MIGRATING on the source" : "ACTIVE on the source");
		}
		run.moveLog.frozenAt(run.move, run.owner, Instant.now());
		run.router.apply(frozen);
		long fenceStarted = System.nanoTime();
		ShardFence.set(run.from, run.tenantId(), FenceState.FROZEN, frozen.version());
		long fenceNanos = System.nanoTime() - fenceStarted;
		if (!capture) {
			ShardFence.set(run.to, run.tenantId(), FenceState.INCOMING, frozen.version());
		}
		run.frozenHere = true;
		run.freezeVersion = frozen.version();
		run.step(MoveStep.FROZEN, "directory version " + frozen.version() + "; source fence FROZEN in "
				+ fenceNanos / 1_000_000 + " ms (waits for the tenant's writes in flight)");
	}

}
