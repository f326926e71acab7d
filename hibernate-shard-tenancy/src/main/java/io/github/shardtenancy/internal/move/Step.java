package io.github.shardtenancy.internal.move;

import io.github.shardtenancy.MoveStep;

/**
 * One step of the move protocol. A step does its work and records itself in the move log; it is idempotent, so a
 * run resumed after a crash between its work and its record repeats it harmlessly.
 */
interface Step {

	/**
	 * @param run the move's run
	 * @throws RuntimeException ({@link io.github.shardtenancy.ShardTenancyException}) if the step failed
	 */
	void run(MoveRun run);

	/**
	 * @param step a step
	 * @return its name as observers are told it, in lower case with underscores ({@code mark}, {@code copy},
	 * {@code catch_up}, {@code freeze}, {@code final_catch_up}, {@code verify}, {@code flip}, {@code clean},
	 * {@code abort})
	 */
	static String name(Step step) {
		String simple = step.getClass().getSimpleName();
		if (simple.endsWith("Step")) {
			simple = simple.substring(0, simple.length() - "Step".length());
		}
		return simple.replaceAll("([a-z])([A-Z])", "$1_$2").toLowerCase(java.util.Locale.ROOT);
	}

	/**
	 * @param recorded the move's last recorded step, not final
	 * @param capture whether the move captures changes (online) or not (stop-the-world)
	 * @return the step that follows it: with capture mark, copy, catch up, freeze, final catch-up, verify, flip,
	 * clean; without capture freeze, copy, verify, flip, clean; in a revert (run with source and target swapped, see
	 * {@link MoveRun#reversed}) freeze, final catch-up, verify, flip, clean
	 * @throws IllegalStateException if the recorded step is final or not part of the protocol
	 */
	static Step after(MoveStep recorded, boolean capture) {
		if (recorded.isReverting()) {
			return switch (recorded) {
				case REVERTING -> new FreezeStep();
				case REVERT_FROZEN -> new FinalCatchUpStep();
				case REVERT_FINAL_CAUGHT_UP -> new VerifyStep();
				case REVERT_VERIFIED -> new FlipStep();
				case REVERT_FLIPPED -> new CleanStep();
				default -> throw new IllegalStateException("No step after " + recorded + " in a revert");
			};
		}
		if (capture) {
			return switch (recorded) {
				case PLANNED -> new MarkStep();
				case MARKED -> new CopyStep();
				case COPIED -> new CatchUpStep();
				case CAUGHT_UP -> new FreezeStep();
				case FROZEN -> new FinalCatchUpStep();
				case FINAL_CAUGHT_UP -> new VerifyStep();
				case VERIFIED -> new FlipStep();
				case FLIPPED -> new CleanStep();
				default -> throw new IllegalStateException("No step after " + recorded);
			};
		}
		return switch (recorded) {
			case PLANNED -> new FreezeStep();
			case FROZEN -> new CopyStep();
			case COPIED -> new VerifyStep();
			case VERIFIED -> new FlipStep();
			case FLIPPED -> new CleanStep();
			default -> throw new IllegalStateException("No step after " + recorded + " in a move without capture");
		};
	}

}
