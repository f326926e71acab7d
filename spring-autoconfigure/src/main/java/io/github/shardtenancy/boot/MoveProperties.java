package io.github.shardtenancy.boot;

import java.time.Duration;

/** Tenant moves. Bound from {@code shard-tenancy.move.*}, see {@link ShardTenancyProperties}. */
public class MoveProperties {

	/**
	 * Stop-the-world moves ({@code TenantAdmin.move}): how long after a move's flip the tenant's rows are deleted
	 * from the source shard: the safety period that lets transactions which began on the source before the flip
	 * finish reading. Zero deletes them before the move returns. Default 5 seconds.
	 */
	private Duration cleanDelay = Duration.ofSeconds(5);

	/**
	 * Moves ({@code TenantMover} bean, {@code MoveSettings} bean): rows per bulk-copy batch and change-log
	 * entries per catch-up batch (at most 500 of those per statement), each committed on the target. At least 1.
	 * Default 10,000 rows.
	 */
	private int batchSize = 10_000;

	/**
	 * Online mover: pause after every copy and catch-up batch, to spare the source shard. Zero for none (the
	 * default).
	 */
	private Duration throttle = Duration.ZERO;

	/**
	 * Online mover: change-log entries (rows) left after a catch-up round at or below which the tenant is frozen
	 * for the final catch-up. The freeze window grows with it. At least 0. Default 20 rows.
	 */
	private long catchUpLagThreshold = 20;

	/**
	 * Online mover: catch-up rounds before the tenant is frozen whatever the lag. At least 1. Default 20.
	 */
	private int maxCatchUpRounds = 20;

	/**
	 * Online moves ({@code MoveSettings} bean, used by the lifecycle): how long the source rows are kept after the
	 * flip. Zero (the default) cleans them before the move returns; otherwise the mover cleans them on its
	 * executor after that time (or {@code TenantMover.resume} or {@code clean} does, after a restart).
	 */
	private Duration onlineCleanDelay = Duration.ZERO;

	/**
	 * Online mover: how long a move's owner may stay silent (no heartbeat in the move log) before another mover
	 * instance may take the move over with {@code resume}. Default 30 seconds.
	 */
	private Duration lease = Duration.ofSeconds(30);

	/**
	 * Whether the online mover's change capture trigger is installed on every tenant table of every shard at
	 * start-up, next to the fence's write check (a move installs it anyway, but on H2 creating a trigger under
	 * concurrent writes can fail them). Default {@code true}.
	 */
	private boolean installCapture = true;

	/**
	 * Online moves ({@code MoveSettings} bean): how long after the flip a move stays revertable
	 * ({@code TenantMover.revert}): the source rows are kept and receive the tenant's changes from the target
	 * (reverse catch-up) until the move is finalised, by {@code TenantMover.clean} or by the mover once this time
	 * has passed. Needs change capture on the target shard. Zero (the default) for none.
	 */
	private Duration soak = Duration.ZERO;

	public Duration getCleanDelay() {
		return this.cleanDelay;
	}

	public void setCleanDelay(Duration cleanDelay) {
		this.cleanDelay = cleanDelay;
	}

	public int getBatchSize() {
		return this.batchSize;
	}

	public void setBatchSize(int batchSize) {
		this.batchSize = batchSize;
	}

	public Duration getThrottle() {
		return this.throttle;
	}

	public void setThrottle(Duration throttle) {
		this.throttle = throttle;
	}

	public long getCatchUpLagThreshold() {
		return this.catchUpLagThreshold;
	}

	public void setCatchUpLagThreshold(long catchUpLagThreshold) {
		this.catchUpLagThreshold = catchUpLagThreshold;
	}

	public int getMaxCatchUpRounds() {
		return this.maxCatchUpRounds;
	}

	public void setMaxCatchUpRounds(int maxCatchUpRounds) {
		this.maxCatchUpRounds = maxCatchUpRounds;
	}

	public Duration getOnlineCleanDelay() {
		return this.onlineCleanDelay;
	}

	public void setOnlineCleanDelay(Duration onlineCleanDelay) {
		this.onlineCleanDelay = onlineCleanDelay;
	}

	public Duration getLease() {
		return this.lease;
	}

	public void setLease(Duration lease) {
		this.lease = lease;
	}

	public boolean isInstallCapture() {
		return this.installCapture;
	}

	public void setInstallCapture(boolean installCapture) {
		this.installCapture = installCapture;
	}

	public Duration getSoak() {
		return this.soak;
	}

	public void setSoak(Duration soak) {
		this.soak = soak;
	}

}
