package io.github.shardtenancy.internal.move;

import java.util.Optional;

import io.github.shardtenancy.MoveException;
import io.github.shardtenancy.MoveStatus;
import io.github.shardtenancy.internal.fence.FenceState;
import io.github.shardtenancy.internal.fence.ShardFence;
import io.github.shardtenancy.MoveStep;

/**
 * {@link MoveStep#DONE}: the tenant's rows deleted from the source, provided the source fence says the tenant moved
 * away; the move ends and its lock on the tenant is released. After a soak this finalises the move: the capture on
 * the target (for the reverse catch-up) is switched off first, once {@link MoveStatus#CLEAN_STARTED} is recorded so
 * that no revert can start on a half-cleaned source (another instance's, after this one's lease ran out). In a revert (source and target swapped) the rows are
 * deleted from the move's target, its capture switched off, and the move ends {@link MoveStep#REVERTED}.
 */
final class CleanStep implements Step {

	@Override
	public void run(MoveRun run) {
		Optional<ShardFence.Row> fence = ShardFence.get(run.from.dataSource(), run.from.id(), run.tenantId());
		if (fence.isPresent() && fence.get().state() != FenceState.MOVED) {
			throw new MoveException("Refusing to clean tenant '" + run.tenantId() + "' from shard '" + run.from.id()
					+ "': its fence there is " + fence.get().state() + " (minimum directory version "
					+ fence.get().minVersion() + "), not MOVED", run.tenantId(), run.from.id(),
					fence.get().minVersion(), null);
		}
		if (run.soaks()) {
			if (!run.reverse) {
				run.step(MoveStep.FLIPPED, MoveStatus.CLEAN_STARTED);
			}
			run.sql(run.to, () -> {
				ChangeCapture.captureOff(run.to, run.tenantId());
				return null;
			});
		}
		long deleted = run.sql(run.from, () -> {
			// No fence lock here (it deadlocked against writers on H2): a move of this tenant back to this shard
			// cannot start before this move is DONE, because the move log admits one unfinished move per tenant.
			long rows = RowDeletion.deleteMoved(run.from, run.tenantId(), run.plans);
			if (run.capturesFrom()) {
				ChangeCapture.captureOff(run.from, run.tenantId());
			}
			return rows;
		});
		run.finish(MoveStep.DONE,
				"deleted " + deleted + " rows from '" + run.from.id() + "'");
	}

}
