package io.github.shardtenancy;

/**
 * One shard's load: for placement, an ACTIVE registered shard and how many tenants it owns; for the
 * {@link io.github.shardtenancy.Rebalancer} and {@link io.github.shardtenancy.TenantLoads}, also the totals of its
 * tenants' figures ({@link io.github.shardtenancy.TenantLoad}). Immutable.
 *
 * @param shardId the shard
 * @param region its region, or {@code null} if none was registered
 * @param tenants the tenants whose entry names it as owner, DELETED tenants excluded
 * @param transactions its tenants' transactions seen by this instance in the load window (0 for placement)
 * @param rowsWritten rows its tenants' committed transactions wrote, seen by this instance in the window
 * @param nanosSpent time its tenants' connections were held on this instance in the window, in nanoseconds
 * @param rowsStored rows in its tenant tables, 0 if not measured
 * @param bytesStored the database's estimate of their bytes, 0 if not measured or not estimated
 */
public record ShardLoad(String shardId, String region, long tenants, long transactions, long rowsWritten,
		long nanosSpent, long rowsStored, long bytesStored) {

	/**
	 * A placement candidate: a shard and how many tenants it owns, nothing measured.
	 * @param shardId the shard
	 * @param region its region, or {@code null}
	 * @param tenants the tenants it owns
	 */
	public ShardLoad(String shardId, String region, long tenants) {
		this(shardId, region, tenants, 0, 0, 0, 0, 0);
	}

	/**
	 * @param measure a measure
	 * @return this shard's total of it ({@link LoadMeasure#BYTES} falls back to rows when no bytes were estimated)
	 */
	public long value(LoadMeasure measure) {
		return switch (measure) {
			case TENANTS -> this.tenants;
			case ROWS -> this.rowsStored;
			case BYTES -> this.bytesStored > 0 || this.rowsStored == 0 ? this.bytesStored : this.rowsStored;
			case TRANSACTIONS -> this.transactions;
		};
	}

}
