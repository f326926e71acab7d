package io.github.shardtenancy.internal.move;

import java.time.Duration;
import java.util.Map;
import java.util.Set;

import io.github.shardtenancy.MoveException;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.MoveStep;

/**
 * {@link MoveStep#FINAL_CAUGHT_UP}: inside the freeze, rounds without throttle until the change log is empty. Online
 * moves only.
 */
final class FinalCatchUpStep implements Step {

	/** Rounds after which a change log that is still not empty fails the step. */
	private static final int MAX_ROUNDS = 1000;

	@Override
	public void run(MoveRun run) {
		MoveSettings settings = run.settings;
		long lag = -1;
		long started = System.nanoTime();
		int rounds = 0;
		// The keys are collected only if this run froze the tenant itself: otherwise earlier rounds of this step, in
		// a mover that crashed, may have applied (and deleted) entries this run never sees.
		Map<TablePlan, Set<String>> applied = run.frozenHere ? run.finalKeys : null;
		for (int round = 1; round <= MAX_ROUNDS && lag != 0; round++) {
			rounds = round;
			lag = run.sql(run.from, () -> CatchUpRound.catchUpRound(run.from, run.to, run.tenantId(), run.plans,
					settings.batchSize(), Duration.ZERO, run.heartbeat(), null, applied));
		}
		run.finalCaughtUpHere = run.frozenHere;
		if (lag != 0) {
			throw new MoveException("The change log of tenant '" + run.tenantId() + "' on shard '" + run.from.id()
					+ "' still holds " + lag + " entries after the freeze", run.tenantId(), run.from.id(), -1, null);
		}
		run.step(MoveStep.FINAL_CAUGHT_UP, "lag=0 after " + rounds + " round(s)"
				+ (applied != null ? " applying " + applied.values().stream().mapToInt(Set::size).sum() + " key(s)" : "")
				+ " in " + (System.nanoTime() - started) / 1_000_000 + " ms");
	}

}
