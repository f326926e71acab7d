package io.github.shardtenancy.boot.retry;

import java.time.Duration;
import java.util.Objects;

/**
 * How {@link ShardTenancyRetry} retries a rejected transaction. Immutable and thread-safe.
 *
 * @param maxAttempts total attempts, the first included, for every retryable failure except a FROZEN or INCOMING rejection; at
 * least 1
 * @param initialDelay the delay before the first retry; not negative
 * @param multiplier the factor applied to the delay after each retry; at least 1
 * @param maxDelay the longest delay between two attempts; not shorter than {@code initialDelay}
 * @param jitter the most a delay is randomly lengthened or shortened by; not negative
 * @param freezeWait how long a FROZEN or INCOMING rejection (a move in progress) keeps being retried, measured from the start
 * of the first attempt, regardless of {@code maxAttempts}; not negative
 * @param serializationFailures whether a genuine serialization failure (SQLSTATE 40001 without the fence marker) is
 * retried too (up to {@code maxAttempts}, never invalidating a cache entry)
 */
public record RetrySettings(int maxAttempts, Duration initialDelay, double multiplier, Duration maxDelay,
		Duration jitter, Duration freezeWait, boolean serializationFailures) {

	/**
	 * @throws NullPointerException if a duration is {@code null}
	 * @throws IllegalArgumentException if a value is out of the range given above
	 */
	public RetrySettings {
		Objects.requireNonNull(initialDelay, "initialDelay");
		Objects.requireNonNull(maxDelay, "maxDelay");
		Objects.requireNonNull(jitter, "jitter");
		Objects.requireNonNull(freezeWait, "freezeWait");
		if (maxAttempts < 1) {
			throw new IllegalArgumentException("maxAttempts must be at least 1, was " + maxAttempts);
		}
		if (initialDelay.isNegative() || jitter.isNegative() || freezeWait.isNegative()) {
			throw new IllegalArgumentException("initialDelay, jitter and freezeWait must not be negative, were "
					+ initialDelay + ", " + jitter + ", " + freezeWait);
		}
		if (multiplier < 1) {
			throw new IllegalArgumentException("multiplier must be at least 1, was " + multiplier);
		}
		if (maxDelay.compareTo(initialDelay) < 0) {
			throw new IllegalArgumentException("maxDelay (" + maxDelay + ") must not be shorter than initialDelay ("
					+ initialDelay + ")");
		}
	}

	/** @return 5 attempts, 10 ms initial delay, multiplier 2, 500 ms max delay, 10 ms jitter, 10 s freeze wait,
	 * serialization failures retried */
	public static RetrySettings defaults() {
		return new RetrySettings(5, Duration.ofMillis(10), 2.0, Duration.ofMillis(500), Duration.ofMillis(10),
				Duration.ofSeconds(10), true);
	}

}
