package io.github.shardtenancy;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * A move as recorded in the move log, at the moment it was read. Immutable and thread-safe.
 *
 * @param moveId the move's id
 * @param tenantId the tenant
 * @param sourceShardId the shard the tenant leaves
 * @param targetShardId the shard it goes to
 * @param step the last step completed
 * @param stepData progress within the current step (for example {@code table=NOTE rows=5000}), or {@code null}
 * @param settings the settings the move runs with
 * @param owner the mover instance running or last running the move, or {@code null} when none holds it
 * @param heartbeat when the owner last wrote, or {@code null}
 * @param createdAt when the move was started
 * @param frozenAt when the tenant was frozen, or {@code null} before that
 * @param flippedAt when the directory was flipped, or {@code null} before that
 * @param finishedAt when the move ended (DONE or ABORTED), or {@code null}
 * @param error the last failure, or {@code null}
 */
public record MoveStatus(String moveId, String tenantId, String sourceShardId, String targetShardId, MoveStep step,
		String stepData, MoveSettings settings, String owner, Instant heartbeat, Instant createdAt, Instant frozenAt,
		Instant flippedAt, Instant finishedAt, String error) {

	/** The step data a FLIPPED move with a soak records just before its clean switches anything off. */
	public static final String CLEAN_STARTED = "clean started";

	/** @return whether the move has ended */
	public boolean isFinished() {
		return this.step.isFinal();
	}

	/** @return the time the tenant's writes were refused (freeze to flip, millisecond precision), once flipped */
	public Optional<Duration> freezeWindow() {
		return (this.frozenAt != null && this.flippedAt != null)
				? Optional.of(Duration.between(this.frozenAt, this.flippedAt)) : Optional.empty();
	}

	/**
	 * @return whether {@link TenantMover#revert(String)} may return the tenant to its source: the move is
	 * {@link MoveStep#FLIPPED} with a soak ({@link MoveSettings#soak()}), not finalised yet
	 */
	public boolean isRevertable() {
		return this.step == MoveStep.FLIPPED && this.settings.hasSoak() && !isCleanStarted();
	}

	/**
	 * @return whether the clean of this FLIPPED move has started (its step data is {@link #CLEAN_STARTED}): the
	 * target's capture may be off and the source's rows partly deleted, so the move is no longer revertable and
	 * {@link TenantMover#resume} finishes the clean
	 */
	public boolean isCleanStarted() {
		return this.step == MoveStep.FLIPPED && CLEAN_STARTED.equals(this.stepData);
	}

	/**
	 * @return the end of the soak (flip time plus {@link MoveSettings#soak()}), once flipped with a soak; after it the
	 * mover finalises the move (cleans the source). Empty without a soak or before the flip
	 */
	public Optional<Instant> soakUntil() {
		return (this.flippedAt != null && this.settings.hasSoak()) ? Optional.of(this.flippedAt.plus(this.settings.soak()))
				: Optional.empty();
	}

}
