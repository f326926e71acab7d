package io.github.shardtenancy.internal.move;

import java.util.Map;

import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.MoveStep;

/**
 * {@link MoveStep#COPIED}: the target's rows of the tenant (left by an interrupted copy) deleted, then the tenant's
 * rows copied from one snapshot of the source, committed every {@link MoveSettings#batchSize()} rows; then the target's
 * statistics of the copied tables refreshed ({@link io.github.shardtenancy.spi.FenceDialect#analyze}).
 */
final class CopyStep implements Step {

	@Override
	public void run(MoveRun run) {
		MoveSettings settings = run.settings;
		long started = System.nanoTime();
		Map<String, Long> copied = run.sql(run.to, () -> {
			RowDeletion.deleteMoved(run.to, run.tenantId(), run.plans);
			return BulkCopy.copy(run.from, run.to, run.tenantId(), run.plans, settings.batchSize(),
					settings.throttle(), run.heartbeat());
		});
		run.copied = Map.copyOf(copied);
		long rows = copied.values().stream().mapToLong(Long::longValue).sum();
		long ms = Math.max(1, (System.nanoTime() - started) / 1_000_000);
		// The target's statistics for the rows it holds now, before the catch-up plans its reads by key there.
		long analyzeStarted = System.nanoTime();
		run.sql(run.to, () -> MoveSql.withConnection(run.to, c -> {
			c.setAutoCommit(true);
			for (TablePlan plan : run.plans) {
				run.to.dialect().analyze(c, plan.sqlName());
			}
			return null;
		}));
		long analyzeMs = (System.nanoTime() - analyzeStarted) / 1_000_000;
		String method = run.sql(run.to, () -> BulkCopy.copyMethod(run.from, run.to));
		run.step(MoveStep.COPIED, "rows=" + rows + " tables=" + copied + " ms=" + ms + " rowsPerSecond="
				+ (rows * 1000 / ms) + " analyzeMs=" + analyzeMs + " via " + method);
	}

}
