package io.github.shardtenancy.boot;

import java.time.Duration;
import java.time.Instant;

import io.github.shardtenancy.IdCheck;
import io.github.shardtenancy.IdSettings;

/**
 * {@code @ShardSafeId} identifiers and the start-up check of tenant entities' id strategies. Bound from
 * {@code shard-tenancy.ids.*}, see {@link ShardTenancyProperties}.
 */
public class IdsProperties {

	/**
	 * What the start does with a tenant entity (one with a {@code @TenantId} attribute) whose id strategy counts per
	 * shard (IDENTITY, SEQUENCE, TABLE, AUTO for numbers, increment) and would collide after a move, and with a tenant
	 * table column whose values the database generates (identity, serial, AUTO_INCREMENT, a sequence default): fail
	 * the start, warn, or check nothing. Default fail.
	 */
	private IdCheck check = IdCheck.FAIL;

	/**
	 * Instant of timestamp 0 of {@code @ShardSafeId} ids, which run out 69 years later. The same on every instance
	 * of a directory; never change it once ids were generated. Default 2024-01-01T00:00:00Z.
	 */
	private Instant epoch = IdSettings.DEFAULT_EPOCH;

	/**
	 * Duration of this instance's lease of its generator id in the directory, renewed every third of it; ids stop
	 * when the lease could not be renewed before it ended. Default 60 seconds.
	 */
	private Duration lease = Duration.ofSeconds(60);

	/**
	 * Largest step back of the clock that the generator waits out; a larger one makes it refuse ids until the clock
	 * has caught up. Default 1 second.
	 */
	private Duration maxClockBackwards = Duration.ofSeconds(1);

	/**
	 * Number of {@code Integer} ids of {@code @ShardSafeId} an instance leases from a table's counter in the directory
	 * in one round trip; the ids of a block an instance did not use up are skipped. Default 100.
	 */
	private int integerBlockSize = IdSettings.DEFAULT_INTEGER_BLOCK_SIZE;

	public IdCheck getCheck() {
		return this.check;
	}

	public void setCheck(IdCheck check) {
		this.check = check;
	}

	public Instant getEpoch() {
		return this.epoch;
	}

	public void setEpoch(Instant epoch) {
		this.epoch = epoch;
	}

	public Duration getLease() {
		return this.lease;
	}

	public void setLease(Duration lease) {
		this.lease = lease;
	}

	public Duration getMaxClockBackwards() {
		return this.maxClockBackwards;
	}

	public void setMaxClockBackwards(Duration maxClockBackwards) {
		this.maxClockBackwards = maxClockBackwards;
	}

	public int getIntegerBlockSize() {
		return this.integerBlockSize;
	}

	public void setIntegerBlockSize(int integerBlockSize) {
		this.integerBlockSize = integerBlockSize;
	}

}
