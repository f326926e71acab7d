package io.github.shardtenancy.boot;

import java.time.Duration;

import io.github.shardtenancy.retry.RetrySettings;

/** Automatic retry of rejected transactions. Bound from {@code shard-tenancy.retry.*}, see {@link ShardTenancyProperties}. */
public class RetryProperties {

	/**
	 * Whether outermost {@code @Transactional} methods and Spring Data repository calls are retried automatically
	 * after a fence rejection. Default {@code true}. The programmatic
	 * {@link io.github.shardtenancy.boot.retry.ShardTenancyRetry} stays available either way.
	 */
	private boolean enabled = true;

	/**
	 * Total attempts, the first included, for rejections other than FROZEN, for genuine serialization failures
	 * (when retried) and for a shard that could not be reached. Default 5.
	 */
	private int maxAttempts = 5;

	/** Delay before the first retry. Default 10 ms. */
	private Duration initialDelay = Duration.ofMillis(10);

	/** Factor applied to the delay after each retry. Default 2.0. */
	private double multiplier = 2.0;

	/** Longest delay between two attempts. Default 500 ms. */
	private Duration maxDelay = Duration.ofMillis(500);

	/** Random extra or reduced delay added to each backoff, at most this much. Default 10 ms. */
	private Duration jitter = Duration.ofMillis(10);

	/**
	 * How long a FROZEN or INCOMING rejection (a move in progress) keeps being retried, measured from the start of the first
	 * attempt, regardless of {@code max-attempts}. Default 10 seconds.
	 */
	private Duration freezeWait = Duration.ofSeconds(10);

	/**
	 * Whether a genuine serialization failure (SQLSTATE 40001 without the fence marker) is retried as well, up to
	 * {@code max-attempts}; it never invalidates a cache entry. Default {@code true}.
	 */
	private boolean serializationFailures = true;

	/**
	 * Whether a rejected attempt is run again even when work independent of its own transaction (a
	 * {@code REQUIRES_NEW} transaction, an earlier transaction of the same unit of work) committed inside it,
	 * repeating that work. Default {@code false}: such an attempt ends in
	 * {@link io.github.shardtenancy.UnsafeToRerunException}; declare single methods safe with
	 * {@link io.github.shardtenancy.boot.retry.SafeToRerun} instead.
	 */
	private boolean safeToRerun;

	/**
	 * What a re-run does when an UPDATE matches no row of a table into which a failed attempt of the same unit of work
	 * had inserted, the sign of a body that re-used an object whose id the failed attempt set: 'fail' rolls the
	 * attempt back with io.github.shardtenancy.RerunMismatchException, 'warn' logs a warning, 'off' does not check.
	 */
	private RetrySettings.RerunCheck rerunCheck = RetrySettings.RerunCheck.FAIL;

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public int getMaxAttempts() {
		return this.maxAttempts;
	}

	public void setMaxAttempts(int maxAttempts) {
		this.maxAttempts = maxAttempts;
	}

	public Duration getInitialDelay() {
		return this.initialDelay;
	}

	public void setInitialDelay(Duration initialDelay) {
		this.initialDelay = initialDelay;
	}

	public double getMultiplier() {
		return this.multiplier;
	}

	public void setMultiplier(double multiplier) {
		this.multiplier = multiplier;
	}

	public Duration getMaxDelay() {
		return this.maxDelay;
	}

	public void setMaxDelay(Duration maxDelay) {
		this.maxDelay = maxDelay;
	}

	public Duration getJitter() {
		return this.jitter;
	}

	public void setJitter(Duration jitter) {
		this.jitter = jitter;
	}

	public Duration getFreezeWait() {
		return this.freezeWait;
	}

	public void setFreezeWait(Duration freezeWait) {
		this.freezeWait = freezeWait;
	}

	public boolean isSafeToRerun() {
		return this.safeToRerun;
	}

	public void setSafeToRerun(boolean safeToRerun) {
		this.safeToRerun = safeToRerun;
	}

	public RetrySettings.RerunCheck getRerunCheck() {
		return this.rerunCheck;
	}

	public void setRerunCheck(RetrySettings.RerunCheck rerunCheck) {
		this.rerunCheck = rerunCheck;
	}

	public boolean isSerializationFailures() {
		return this.serializationFailures;
	}

	public void setSerializationFailures(boolean serializationFailures) {
		this.serializationFailures = serializationFailures;
	}

}
