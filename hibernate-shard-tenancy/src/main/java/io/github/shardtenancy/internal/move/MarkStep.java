package io.github.shardtenancy.internal.move;

import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.TenantState;
import io.github.shardtenancy.internal.fence.FenceState;
import io.github.shardtenancy.internal.fence.ShardFence;
import io.github.shardtenancy.MoveStep;

/**
 * {@link MoveStep#MARKED}: the directory entry MIGRATING with the target set, change capture on for the tenant on the
 * source, the target fence INCOMING. Online moves only.
 */
final class MarkStep implements Step {

	@Override
	public void run(MoveRun run) {
		DirectoryEntry entry = run.entry();
		DirectoryEntry marked;
		if (run.isMoving(entry, TenantState.MIGRATING)) {
			marked = entry;
		}
		else if (run.isActiveOnSource(entry)) {
			marked = run.directory.update(run.tenantId(), entry.epoch(), run.move.sourceShardId(),
					TenantState.MIGRATING, run.move.targetShardId(), run.actor);
		}
		else {
			throw run.unexpected(entry, "ACTIVE on the source");
		}
		run.router.apply(marked);
		run.sql(run.from, () -> {
			ChangeCapture.captureOn(run.from, run.tenantId(), run.move.moveId(), run.plans);
			return null;
		});
		ShardFence.set(run.to, run.tenantId(), FenceState.INCOMING, marked.version());
		run.step(MoveStep.MARKED, "directory version " + marked.version());
	}

}
