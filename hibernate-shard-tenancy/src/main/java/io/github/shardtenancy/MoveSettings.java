package io.github.shardtenancy;

import java.time.Duration;
import java.util.Objects;

/**
 * How one move runs. Immutable and thread-safe; stored with the move in the move log, so a resumed move runs with the
 * settings it was started with.
 *
 * @param batchSize rows per copy batch and change-log entries per catch-up batch, {@code >= 1}
 * @param throttle pause after every copy and catch-up batch, to spare the source; {@link Duration#ZERO} for none; not
 * {@code null}
 * @param catchUpLagThreshold change-log entries (rows) left after a catch-up round below or at which the move freezes
 * the tenant, {@code >= 0}; the freeze window grows with it. Ignored without {@code capture}
 * @param maxCatchUpRounds catch-up rounds before the move freezes the tenant whatever the lag, {@code >= 1}. Ignored
 * without {@code capture}
 * @param cleanDelay how long the source rows are kept after the flip; {@link Duration#ZERO} cleans at once, otherwise
 * the mover cleans them on its executor once the delay has passed (or {@code TenantMover.resume} or
 * {@code TenantMover.clean} does, for example after a restart). During the delay a transaction that began on the
 * source before the flip (a FROZEN fence admits reads) and runs its statements after it still finds the rows, so
 * its writes are rejected by the fence and retried instead of matching no row. With zero, such a transaction can
 * read nothing or update zero rows; use zero only when no transaction of the tenant can be in flight (tests,
 * maintenance). Not {@code null}
 * @param capture {@code true} for the online move (the tenant's writes are captured while it is copied and refused
 * only from the freeze to the flip: mark, copy, catch up, freeze, final catch-up, verify, flip, clean);
 * {@code false} for the stop-the-world move (the tenant's writes are refused for the whole copy: freeze, copy,
 * verify, flip, clean), which needs no change capture on the source shard
 * @param soak how long after the flip the move stays revertable; {@link Duration#ZERO} (the default) for none. When
 * positive, the flip also switches change capture on for the tenant on the target, the source rows are kept, and the
 * mover applies the tenant's changes on the target to the source (reverse catch-up) until the move is finalised:
 * by {@code TenantMover.clean}, or by the mover once the soak (or the clean delay, if longer) has passed. Until then
 * {@code TenantMover.revert} returns the tenant to its source. Needs change capture on the target shard. Not
 * {@code null}
 */
public record MoveSettings(int batchSize, Duration throttle, long catchUpLagThreshold, int maxCatchUpRounds,
		Duration cleanDelay, boolean capture, Duration soak) {

	/**
	 * @throws IllegalArgumentException if a value is out of range
	 * @throws NullPointerException if a duration is {@code null}
	 */
	public MoveSettings {
		Objects.requireNonNull(throttle, "throttle");
		Objects.requireNonNull(cleanDelay, "cleanDelay");
		Objects.requireNonNull(soak, "soak");
		if (batchSize < 1 || catchUpLagThreshold < 0 || maxCatchUpRounds < 1 || throttle.isNegative()
				|| cleanDelay.isNegative() || soak.isNegative()) {
			throw new IllegalArgumentException("Invalid move settings: " + this);
		}
	}

	/**
	 * Settings without a soak ({@link #soak()} zero).
	 * @throws IllegalArgumentException if a value is out of range
	 * @throws NullPointerException if a duration is {@code null}
	 */
	public MoveSettings(int batchSize, Duration throttle, long catchUpLagThreshold, int maxCatchUpRounds,
			Duration cleanDelay, boolean capture) {
		this(batchSize, throttle, catchUpLagThreshold, maxCatchUpRounds, cleanDelay, capture, Duration.ZERO);
	}

	/** @return whether the move has a soak, after which it stays revertable until finalised */
	public boolean hasSoak() {
		return !this.soak.isZero();
	}

	/**
	 * @return the online move with batches of 10,000 rows (a batch only bounds a target transaction and paces the
	 * throttle: an interrupted copy starts over anyway, and fewer commits copy faster), no throttle, freeze at 20 rows
	 * of lag or less (or after 20 catch-up rounds), clean at once. The small lag keeps the final catch-up, inside the
	 * freeze, short: rounds get shorter as the lag shrinks, so they converge on what the tenant writes during one
	 * short round.
	 */
	public static MoveSettings defaults() {
		return new MoveSettings(10_000, Duration.ZERO, 20, 20, Duration.ZERO, true);
	}

	/** @return {@link #defaults()} without capture: the stop-the-world move */
	public static MoveSettings stopTheWorld() {
		return defaults().withCapture(false);
	}

	/** @param value rows per batch @return a copy with that batch size */
	public MoveSettings withBatchSize(int value) {
		return new MoveSettings(value, this.throttle, this.catchUpLagThreshold, this.maxCatchUpRounds, this.cleanDelay,
				this.capture, this.soak);
	}

	/** @param value pause after each batch @return a copy with that throttle */
	public MoveSettings withThrottle(Duration value) {
		return new MoveSettings(this.batchSize, value, this.catchUpLagThreshold, this.maxCatchUpRounds, this.cleanDelay,
				this.capture, this.soak);
	}

	/** @param value lag in rows @return a copy with that catch-up threshold */
	public MoveSettings withCatchUpLagThreshold(long value) {
		return new MoveSettings(this.batchSize, this.throttle, value, this.maxCatchUpRounds, this.cleanDelay,
				this.capture, this.soak);
	}

	/** @param value rounds @return a copy with that many catch-up rounds at most */
	public MoveSettings withMaxCatchUpRounds(int value) {
		return new MoveSettings(this.batchSize, this.throttle, this.catchUpLagThreshold, value, this.cleanDelay,
				this.capture, this.soak);
	}

	/** @param value delay before the source rows are removed @return a copy with that clean delay */
	public MoveSettings withCleanDelay(Duration value) {
		return new MoveSettings(this.batchSize, this.throttle, this.catchUpLagThreshold, this.maxCatchUpRounds, value,
				this.capture, this.soak);
	}

	/** @param value whether the move captures changes (online) or not (stop-the-world) @return a copy with it */
	public MoveSettings withCapture(boolean value) {
		return new MoveSettings(this.batchSize, this.throttle, this.catchUpLagThreshold, this.maxCatchUpRounds,
				this.cleanDelay, value, this.soak);
	}

	/**
	 * @param value how long the move stays revertable after its flip, {@link Duration#ZERO} for none
	 * @return a copy with that soak
	 */
	public MoveSettings withSoak(Duration value) {
		return new MoveSettings(this.batchSize, this.throttle, this.catchUpLagThreshold, this.maxCatchUpRounds,
				this.cleanDelay, this.capture, value);
	}

}
