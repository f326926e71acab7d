package io.github.shardtenancy;

import java.time.Duration;
import java.util.Objects;

/**
 * How the dual read of moving tenants runs (see {@link DualRead}). Immutable and thread-safe.
 *
 * @param enabled whether shadow reads run at all; {@code false} (the default) makes every comparison
 * {@link DualRead.Outcome#SKIPPED} at no cost and the move's verification ignores the registered queries
 * @param sampleRate share of {@link DualRead#compare} calls of a moving tenant that are run, from {@code 0.0} (none)
 * to {@code 1.0} (all)
 * @param timeout time limit of one comparison, its re-checks included, measured from the call; beyond it the
 * comparison is {@link DualRead.Outcome#ERROR}. Also the query timeout of each statement (rounded up to a second).
 * Positive, not {@code null}
 * @param rechecks how many times a comparison that found a difference reads both shards again before it calls the
 * difference a mismatch, {@code >= 0}: a difference that goes away was the target lagging
 * ({@link DualRead.Outcome#BEHIND})
 * @param recheckDelay pause before each re-check, to let the move's catch-up apply what the target lacked;
 * {@link Duration#ZERO} or more, not {@code null}
 */
public record DualReadSettings(boolean enabled, double sampleRate, Duration timeout, int rechecks,
		Duration recheckDelay) {

	/**
	 * @throws IllegalArgumentException if a value is out of range
	 * @throws NullPointerException if a duration is {@code null}
	 */
	public DualReadSettings {
		Objects.requireNonNull(timeout, "timeout");
		Objects.requireNonNull(recheckDelay, "recheckDelay");
		if (!(sampleRate >= 0.0 && sampleRate <= 1.0) || timeout.isZero() || timeout.isNegative() || rechecks < 0
				|| recheckDelay.isNegative()) {
			throw new IllegalArgumentException("Invalid dual-read settings: " + this);
		}
	}

	/**
	 * @return off; when switched on: every call sampled, 5 seconds per comparison, 3 re-checks 500 ms apart
	 */
	public static DualReadSettings defaults() {
		return new DualReadSettings(false, 1.0, Duration.ofSeconds(5), 3, Duration.ofMillis(500));
	}

	/** @return these settings, switched on or off */
	public DualReadSettings withEnabled(boolean value) {
		return new DualReadSettings(value, this.sampleRate, this.timeout, this.rechecks, this.recheckDelay);
	}

	/** @return these settings with another sample rate, from 0.0 to 1.0 */
	public DualReadSettings withSampleRate(double value) {
		return new DualReadSettings(this.enabled, value, this.timeout, this.rechecks, this.recheckDelay);
	}

	/** @return these settings with another time limit per comparison */
	public DualReadSettings withTimeout(Duration value) {
		return new DualReadSettings(this.enabled, this.sampleRate, value, this.rechecks, this.recheckDelay);
	}

	/** @return these settings with another number of re-checks */
	public DualReadSettings withRechecks(int value) {
		return new DualReadSettings(this.enabled, this.sampleRate, this.timeout, value, this.recheckDelay);
	}

	/** @return these settings with another pause before each re-check */
	public DualReadSettings withRecheckDelay(Duration value) {
		return new DualReadSettings(this.enabled, this.sampleRate, this.timeout, this.rechecks, value);
	}

}
