package io.github.shardtenancy.retry;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

import io.github.shardtenancy.ShardTenancyConfigurationException;

/**
 * How a unit of work rejected by the shard fence is run again: the attempt budget and the backoff between attempts.
 * Immutable and thread-safe; start from {@link #defaults()} and change values with the {@code with...} methods.
 *
 * <p>The delay before retry {@code n} (the first retry is 1) is {@code initialDelay * multiplier^(n-1)}, at most
 * {@code maxDelay}, then moved by a random amount of at most {@code jitter} either way, and kept between
 * {@code initialDelay} and {@code maxDelay} (so that concurrent callers rejected at the same moment do not retry
 * in step); see {@link #delayBeforeRetry(int)}.
 *
 * <p>The configuration keys named in the validation errors are the Spring Boot properties
 * ({@code shard-tenancy.retry.*}) these settings are bound from.
 *
 * @param maxAttempts total attempts, the first included, for every retryable failure except a FROZEN or INCOMING
 * rejection; at least 1
 * @param initialDelay the delay before the first retry; not negative, never {@code null}
 * @param multiplier the factor applied to the delay after each retry; at least 1
 * @param maxDelay the longest delay between two attempts; not shorter than {@code initialDelay}, never {@code null}
 * @param jitter the most a delay is randomly lengthened or shortened by; not negative, never {@code null}
 * @param freezeWait how long a FROZEN or INCOMING rejection (a move in progress) keeps being retried, measured from the
 * start of the first attempt, regardless of {@code maxAttempts}; not negative, never {@code null}
 * @param serializationFailures whether a genuine serialization failure (SQLSTATE 40001 without the fence marker) is
 * retried too (up to {@code maxAttempts}, never invalidating a route)
 * @param rerunCheck what a re-run does on an {@code UPDATE} that matched no row of a table into which a failed attempt
 * had inserted ({@link RetryAttempts}); never {@code null}
 */
public record RetrySettings(int maxAttempts, Duration initialDelay, double multiplier, Duration maxDelay,
		Duration jitter, Duration freezeWait, boolean serializationFailures, RerunCheck rerunCheck) {

	/**
	 * What a re-run does when an {@code UPDATE} matched no row of a table into which a failed attempt of the same unit
	 * of work had issued an {@code INSERT}: the body most likely re-used an object whose id the failed attempt had set
	 * before its INSERT, so the re-run would commit without writing the row (see {@link RetryAttempts}).
	 */
	public enum RerunCheck {

		/** The attempt fails with {@link io.github.shardtenancy.RerunMismatchException}; nothing commits. */
		FAIL,

		/** A warning is logged and the attempt goes on. */
		WARN,

		/** Not checked. */
		OFF

	}

	/**
	 * The settings with {@link RerunCheck#FAIL}.
	 * @param maxAttempts see {@link #maxAttempts()}
	 * @param initialDelay see {@link #initialDelay()}
	 * @param multiplier see {@link #multiplier()}
	 * @param maxDelay see {@link #maxDelay()}
	 * @param jitter see {@link #jitter()}
	 * @param freezeWait see {@link #freezeWait()}
	 * @param serializationFailures see {@link #serializationFailures()}
	 * @throws ShardTenancyConfigurationException if a value is {@code null} or out of range
	 */
	public RetrySettings(int maxAttempts, Duration initialDelay, double multiplier, Duration maxDelay,
			Duration jitter, Duration freezeWait, boolean serializationFailures) {
		this(maxAttempts, initialDelay, multiplier, maxDelay, jitter, freezeWait, serializationFailures,
				RerunCheck.FAIL);
	}

	/** The prefix of the configuration keys named in validation errors. */
	private static final String PREFIX = "shard-tenancy.retry.";

	/**
	 * @throws ShardTenancyConfigurationException if a value is {@code null} or out of the range given above; its
	 * {@link ShardTenancyConfigurationException#setting() setting} is the key at fault, for example
	 * {@code shard-tenancy.retry.max-attempts}
	 */
	public RetrySettings {
		if (maxAttempts < 1) {
			throw invalid("max-attempts", maxAttempts, "at least 1");
		}
		notNegative("initial-delay", initialDelay);
		if (!(multiplier >= 1)) {
			throw invalid("multiplier", multiplier, "at least 1");
		}
		notNegative("max-delay", maxDelay);
		if (maxDelay.compareTo(initialDelay) < 0) {
			throw invalid("max-delay", maxDelay,
					"at least " + initialDelay.toMillis() + " ms (shard-tenancy.retry.initial-delay)");
		}
		notNegative("jitter", jitter);
		notNegative("freeze-wait", freezeWait);
		if (rerunCheck == null) {
			throw invalid("rerun-check", null, "FAIL, WARN or OFF");
		}
	}

	/**
	 * @return 5 attempts, 10 ms initial delay, multiplier 2, 500 ms max delay, 10 ms jitter, 10 s freeze wait,
	 * serialization failures retried, {@link RerunCheck#FAIL}; never {@code null}
	 */
	public static RetrySettings defaults() {
		return new RetrySettings(5, Duration.ofMillis(10), 2.0, Duration.ofMillis(500), Duration.ofMillis(10),
				Duration.ofSeconds(10), true);
	}

	/**
	 * @param value see {@link #maxAttempts()}
	 * @return a copy with it changed; never {@code null}
	 * @throws ShardTenancyConfigurationException if the value is out of range
	 */
	public RetrySettings withMaxAttempts(int value) {
		return new RetrySettings(value, this.initialDelay, this.multiplier, this.maxDelay, this.jitter,
				this.freezeWait, this.serializationFailures, this.rerunCheck);
	}

	/**
	 * Changes the backoff.
	 * @param initialDelay see {@link #initialDelay()}
	 * @param multiplier see {@link #multiplier()}
	 * @param maxDelay see {@link #maxDelay()}
	 * @return a copy with them changed; never {@code null}
	 * @throws ShardTenancyConfigurationException if a value is {@code null} or out of range
	 */
	public RetrySettings withBackoff(Duration initialDelay, double multiplier, Duration maxDelay) {
		return new RetrySettings(this.maxAttempts, initialDelay, multiplier, maxDelay, this.jitter, this.freezeWait,
				this.serializationFailures, this.rerunCheck);
	}

	/**
	 * @param value see {@link #jitter()}
	 * @return a copy with it changed; never {@code null}
	 * @throws ShardTenancyConfigurationException if the value is {@code null} or negative
	 */
	public RetrySettings withJitter(Duration value) {
		return new RetrySettings(this.maxAttempts, this.initialDelay, this.multiplier, this.maxDelay, value,
				this.freezeWait, this.serializationFailures, this.rerunCheck);
	}

	/**
	 * @param value see {@link #freezeWait()}
	 * @return a copy with it changed; never {@code null}
	 * @throws ShardTenancyConfigurationException if the value is {@code null} or negative
	 */
	public RetrySettings withFreezeWait(Duration value) {
		return new RetrySettings(this.maxAttempts, this.initialDelay, this.multiplier, this.maxDelay, this.jitter,
				value, this.serializationFailures, this.rerunCheck);
	}

	/**
	 * @param value see {@link #serializationFailures()}
	 * @return a copy with it changed; never {@code null}
	 */
	public RetrySettings withSerializationFailures(boolean value) {
		return new RetrySettings(this.maxAttempts, this.initialDelay, this.multiplier, this.maxDelay, this.jitter,
				this.freezeWait, value, this.rerunCheck);
	}

	/**
	 * @param value see {@link #rerunCheck()}
	 * @return a copy with it changed; never {@code null}
	 * @throws ShardTenancyConfigurationException if the value is {@code null}
	 */
	public RetrySettings withRerunCheck(RerunCheck value) {
		return new RetrySettings(this.maxAttempts, this.initialDelay, this.multiplier, this.maxDelay, this.jitter,
				this.freezeWait, this.serializationFailures, value);
	}

	/**
	 * The delay before a retry, jitter included, as described in the class documentation. Thread-safe (uses
	 * {@link ThreadLocalRandom}).
	 * @param retry which retry, the first is 1
	 * @return the delay; between {@link #initialDelay()} and {@link #maxDelay()}; never {@code null}
	 * @throws IllegalArgumentException if {@code retry} is less than 1
	 */
	public Duration delayBeforeRetry(int retry) {
		return delayBeforeRetry(retry, ThreadLocalRandom.current().nextDouble(-1.0, 1.0));
	}

	/**
	 * @param retry which retry, the first is 1
	 * @param random where in the jitter range the delay falls: from -1 (shortened by the whole jitter) to 1
	 * (lengthened by it)
	 */
	Duration delayBeforeRetry(int retry, double random) {
		if (retry < 1) {
			throw new IllegalArgumentException("retry must be at least 1, was " + retry);
		}
		double initial = this.initialDelay.toNanos();
		double max = this.maxDelay.toNanos();
		double base = Math.min(initial * Math.pow(this.multiplier, retry - 1), max);
		double jittered = base + random * this.jitter.toNanos();
		return Duration.ofNanos((long) Math.max(initial, Math.min(max, jittered)));
	}

	private static void notNegative(String key, Duration value) {
		if (value == null || value.isNegative()) {
			throw invalid(key, value, "a duration of zero or more");
		}
	}

	private static ShardTenancyConfigurationException invalid(String key, Object value, String expected) {
		String setting = PREFIX + key;
		return new ShardTenancyConfigurationException(setting,
				"Invalid value '" + value + "' for " + setting + ": it must be " + expected);
	}

}
