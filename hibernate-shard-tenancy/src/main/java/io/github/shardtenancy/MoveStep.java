package io.github.shardtenancy;

/**
 * The steps of a move, in the order of the online move. A move's recorded step is the last one it completed;
 * {@link io.github.shardtenancy.TenantMover#resume(String)} continues with the step after it. Every step is idempotent:
 * running it again after a crash that struck after its work but before its record has the same effect as running it
 * once. The stop-the-world move ({@link MoveSettings#capture()} off) runs PLANNED, FROZEN, COPIED, VERIFIED, FLIPPED,
 * DONE: it freezes first, so it has no MARKED, CAUGHT_UP or FINAL_CAUGHT_UP.
 */
public enum MoveStep {

	/** Recorded in the move log; nothing else done yet. */
	PLANNED,

	/**
	 * Directory entry MIGRATING with the target set (epoch and version bumped; traffic still goes to the source);
	 * change capture installed and switched on for the tenant on the source; target fence INCOMING.
	 */
	MARKED,

	/**
	 * The tenant's rows copied to the target from one consistent snapshot of the source, in batches (any rows an
	 * earlier attempt left there deleted first).
	 */
	COPIED,

	/**
	 * Changes logged during the copy applied to the target, round after round, until the lag was small; then one more
	 * round verified the target against the source in that round's snapshot (row count and checksum of every table).
	 */
	CAUGHT_UP,

	/**
	 * Directory entry FROZEN (epoch and version bumped), then the source fence FROZEN at that version, which waits for
	 * the tenant's writes in flight: from then on its writes are rejected and retried by their callers. Without
	 * capture this is the first step, and also sets the target fence INCOMING.
	 */
	FROZEN,

	/** The last logged changes applied: the target holds exactly the source's rows. */
	FINAL_CAUGHT_UP,

	/**
	 * Source and target verified equal: the row count of every table and, value by value, every row the final
	 * catch-up changed (the rest was verified in {@link #CAUGHT_UP}); a resumed move, which cannot know those rows,
	 * compares the count and checksum of every table instead.
	 */
	VERIFIED,

	/**
	 * One directory write: owner = target, ACTIVE, new epoch and version; then the target fence OWNED and the source
	 * fence MOVED at that version, and capture switched off. Abort is no longer possible.
	 */
	FLIPPED,

	/** The tenant's rows removed from the source (after the clean delay, or on command). Final. */
	DONE,

	/** Aborted before the flip: tenant ACTIVE on the source, the target's copy removed. Final. */
	ABORTED,

	/**
	 * A revert of a {@link #FLIPPED} move in its soak ({@link MoveSettings#soak()}) was requested
	 * ({@link io.github.shardtenancy.TenantMover#revert(String)}); nothing of it done yet. The revert runs the
	 * forward steps from the freeze with source and target swapped; resumed, it continues, it is never undone.
	 */
	REVERTING,

	/**
	 * Revert: directory entry FROZEN on the target with the source as its target shard (epoch and version bumped),
	 * then the target fence FROZEN (waiting for the tenant's writes in flight) and the source fence INCOMING.
	 */
	REVERT_FROZEN,

	/** Revert: the last changes logged on the target applied to the source (reverse catch-up drained). */
	REVERT_FINAL_CAUGHT_UP,

	/** Revert: source and target verified equal, count and checksum of every table. */
	REVERT_VERIFIED,

	/**
	 * Revert: one directory write (owner = source, ACTIVE, new epoch and version); then the source fence OWNED and the
	 * target fence MOVED at that version, and capture on the target switched off. The target is cleaned after
	 * {@link MoveSettings#cleanDelay()}.
	 */
	REVERT_FLIPPED,

	/** Reverted: the tenant's rows removed from the target; the tenant lives on its source again. Final. */
	REVERTED;

	/** @return whether the move has ended ({@link #DONE}, {@link #ABORTED} or {@link #REVERTED}) */
	public boolean isFinal() {
		return this == DONE || this == ABORTED || this == REVERTED;
	}

	/** @return whether the flip is behind the move (it can no longer be aborted); also during and after a revert */
	public boolean isFlipped() {
		return this == FLIPPED || this == DONE || isReverting() || this == REVERTED;
	}

	/** @return whether a revert is under way (requested, not finished): {@link #REVERTING} to {@link #REVERT_FLIPPED} */
	public boolean isReverting() {
		return this == REVERTING || this == REVERT_FROZEN || this == REVERT_FINAL_CAUGHT_UP || this == REVERT_VERIFIED
				|| this == REVERT_FLIPPED;
	}

}
