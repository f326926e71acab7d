package io.github.shardtenancy.sample.demo;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BooleanSupplier;

import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.MoveResult;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.MoveStep;
import io.github.shardtenancy.ShardTenancyException;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.TenantMover;

/**
 * The demo's mover loop: moves random tenants to another shard while the run lasts, then cleans the sources of the
 * moves still waiting for their clean delay. Runs on one thread.
 */
final class DemoMover {

	private final TenantAdmin directory;

	private final TenantMover mover;

	private final MoveSettings options;

	private final MoveStepTimes steps;

	private final Duration pause;

	/**
	 * @param directory where the tenants' current shards are read
	 * @param mover the online mover, with {@code steps} as its hook
	 * @param options the options of every move
	 * @param steps the mover's hook, recording each move's steps
	 * @param pause the pause after each move
	 */
	DemoMover(TenantAdmin directory, TenantMover mover, MoveSettings options, MoveStepTimes steps, Duration pause) {
		this.directory = directory;
		this.mover = mover;
		this.options = options;
		this.steps = steps;
		this.pause = pause;
	}

	/**
	 * Moves random tenants while the run lasts, then cleans the sources of the moves still waiting for their clean
	 * delay. A tenant whose last move is not cleaned yet is not moved again (the move log would refuse it).
	 */
	void move(RunRecord run, BooleanSupplier running) {
		ThreadLocalRandom random = ThreadLocalRandom.current();
		Map<String, String> uncleaned = new LinkedHashMap<>();
		while (running.getAsBoolean()) {
			clean(run, uncleaned);
			String tenant = run.tenants.get(random.nextInt(run.tenants.size()));
			if (uncleaned.containsKey(tenant)) {
				RunRecord.pause(this.pause);
				continue;
			}
			try {
				DirectoryEntry entry = this.directory.find(tenant).orElseThrow();
				List<String> others = run.shards.stream().filter(s -> !s.equals(entry.shardId())).toList();
				String target = others.get(random.nextInt(others.size()));
				MoveResult result = this.mover.moveAndWait(tenant, target, this.options);
				synchronized (run.moves) {
					run.moves.add(result);
					run.moveSteps.add(this.steps.describe(result.moveId()));
				}
				if (result.step() == MoveStep.FLIPPED) {
					uncleaned.put(tenant, result.moveId());
				}
			}
			catch (ShardTenancyException ex) {
				run.moveFailures.add(ex.getClass().getSimpleName() + ": " + ex.getMessage());
			}
			catch (RuntimeException ex) {
				run.untyped(run.moverUntypedFailures, "move of tenant '" + tenant + "'", ex);
			}
			RunRecord.pause(this.pause);
		}
		long cleanDeadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
		while (!uncleaned.isEmpty() && System.nanoTime() < cleanDeadline) {
			RunRecord.pause(Duration.ofMillis(100));
			clean(run, uncleaned);
		}
		if (!uncleaned.isEmpty()) {
			run.moveFailures.add("source clean-up did not finish within 30 s: " + uncleaned);
		}
	}

	/** Resumes every flipped move: it cleans the source once the clean delay has passed. */
	private void clean(RunRecord run, Map<String, String> uncleaned) {
		uncleaned.entrySet().removeIf(move -> {
			try {
				return this.mover.resume(move.getValue()).step() == MoveStep.DONE;
			}
			catch (ShardTenancyException ex) {
				run.moveFailures.add("clean of move " + move.getValue() + ": " + ex.getClass().getSimpleName() + ": "
						+ ex.getMessage());
				return true;
			}
		});
	}

}
