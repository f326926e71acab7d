package io.github.shardtenancy.internal.move;

import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.MoveStep;

/**
 * {@link MoveStep#CAUGHT_UP}: catch-up rounds until the lag is at most {@link MoveSettings#catchUpLagThreshold()} (or
 * {@link MoveSettings#maxCatchUpRounds()} rounds ran), then one more round that also verifies the whole copy in its
 * snapshot. Online moves only.
 */
final class CatchUpStep implements Step {

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
		run.step(MoveStep.CAUGHT_UP, "rounds=" + (round + 1) + " lag=" + lag + " verified rows=" + verifiedRows[0]);
	}

}
