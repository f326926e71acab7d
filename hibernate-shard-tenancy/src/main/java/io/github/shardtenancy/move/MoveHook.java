package io.github.shardtenancy.move;

/**
 * Called by {@link OnlineMover} on the mover's thread each time a step has been recorded in the move log, before the
 * next one starts. Meant for tests and operations tooling (metrics, pausing): an exception other than a
 * {@link RuntimeException} thrown here (an {@link Error}) stops the mover at once, as a crash would: nothing is
 * undone, the connections are closed, and the move can be resumed from the step just recorded.
 */
@FunctionalInterface
public interface MoveHook {

	/** Does nothing. */
	MoveHook NONE = (moveId, step) -> {
	};

	/**
	 * @param moveId the move
	 * @param step the step just recorded
	 */
	void stepRecorded(String moveId, MoveStep step);

}
