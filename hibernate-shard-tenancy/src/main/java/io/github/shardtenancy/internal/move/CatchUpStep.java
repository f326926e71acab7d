package io.github.shardtenancy.internal.move;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.MoveStep;

/**
 * {@link MoveStep#CAUGHT_UP}: catch-up rounds until the lag is at most {@link MoveSettings#catchUpLagThreshold()} (or
 * {@link MoveSettings#maxCatchUpRounds()} rounds ran), then one more round that also verifies the whole copy in its
 * snapshot, then, while the lag is above the threshold, at most {@link #PRE_FREEZE_ROUNDS} rounds that each verify the
 * rows they applied in their own snapshot. Online moves only.
 */
final class CatchUpStep implements Step {

	/**
	 * Catch-up rounds at most after the one that verifies the whole copy, while the lag is above
	 * {@link MoveSettings#catchUpLagThreshold()}; each verifies the rows it applied, in its snapshot.
	 */
	static final int PRE_FREEZE_ROUNDS = 3;

	@Override
	public void run(MoveRun run) {
		MoveSettings settings = run.settings;
		long lag;
		int round = 0;
		while (round < settings.maxCatchUpRounds()) {
			round++;
			lag = run.sql(run.from, () -> CatchUpRound.catchUpRound(run.from, run.to, run.tenantId(), run.plans,
					settings.batchSize(), settings.throttle(), run.heartbeat()));
			run.moveLog.progress(run.move, run.owner, "catch-up round=" + round + " lag=" + lag);
			if (lag <= settings.catchUpLagThreshold()) {
				break;
			}
		}
		// One more round that also verifies, in its own snapshot: once it has applied that snapshot's changes, the
		// target must equal the source in that snapshot (row count and checksum of every table). The freeze then
		// only has to verify the rows its final catch-up touches (see VerifyStep).
		long[] verifiedRows = new long[1];
		lag = run.sql(run.from, () -> CatchUpRound.catchUpRound(run.from, run.to, run.tenantId(), run.plans,
				settings.batchSize(), settings.throttle(), run.heartbeat(),
				source -> verifiedRows[0] = VerifyStep.verifySnapshot(run, source), null));
		// The full verification took a while, and the tenant's writes of that while are in the log: rounds that
		// verify only the keys they apply shrink that backlog before the freeze, so that the final catch-up and the
		// verification inside the freeze have little to do. A bounded number, as the writers may outpace them.
		int after = 0;
		while (lag > settings.catchUpLagThreshold() && after < PRE_FREEZE_ROUNDS) {
			after++;
			lag = run.sql(run.from, () -> {
				Map<TablePlan, Set<String>> applied = new LinkedHashMap<>();
				return CatchUpRound.catchUpRound(run.from, run.to, run.tenantId(), run.plans, settings.batchSize(),
						settings.throttle(), run.heartbeat(), source -> VerifyStep.verifyRound(run, source, applied),
						applied);
			});
		}
		run.step(MoveStep.CAUGHT_UP, "rounds=" + (round + 1) + " lag=" + lag + " verified rows=" + verifiedRows[0]
				+ (after > 0 ? "; then " + after + " round(s) verifying the rows they applied" : ""));
	}

}
