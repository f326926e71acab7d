package io.github.shardtenancy.spi;

import io.github.shardtenancy.MoveStep;

/**
 * Called by the mover on the thread running a move each time a step has been recorded in the move log, before the
 * next one starts (also for {@link MoveStep#PLANNED}, right after the move was recorded). Meant for tests and
 * operations tooling (metrics, pausing). A {@link RuntimeException} thrown here fails the move like a failed step
 * (aborted before the flip, left for resume after it); anything else (an {@link Error}) stops the mover at once, as
 * a crash would: nothing is undone, the connections are closed, and the move can be resumed from the step just
 * recorded. Implementations must be thread-safe when moves run at once.
 */
@FunctionalInterface
public interface MoveHook {

	/** Does nothing. */
	MoveHook NONE = (moveId, step) -> {
	};

	/**
	 * @param moveId the move, never {@code null}
	 * @param step the step just recorded, never {@code null}
	 */
	void stepRecorded(String moveId, MoveStep step);

}
