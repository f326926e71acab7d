package io.github.shardtenancy;

/**
 * The error of a {@link TenantTaskResult.Status#FAILED} tenant of a named run that lost its lease: its lease lapsed
 * without a renewal, another run of the name took the lease over (a higher fencing token), the tenant's completion
 * mark carries a newer run's token, or the instance was closed. The tenant's work was not committed by this run
 * (its transaction was rolled back, or never began); the run that holds the lease now, or a resumed one, runs it.
 * Immutable and thread-safe.
 */
public class TenantTaskLeaseLostException extends ShardTenancyException {

	private final String runName;

	private final long token;

	/**
	 * @param message what was refused and why, naming the run, the tenant and the tokens; never {@code null}
	 * @param runName the run's name; never {@code null}
	 * @param tenantId the tenant whose work was not committed; never {@code null}
	 * @param shardId the shard the refused transaction was on, or {@code null} if it did not begin
	 * @param token the fencing token this run held
	 */
	public TenantTaskLeaseLostException(String message, String runName, String tenantId, String shardId, long token) {
		super(message, tenantId, shardId, -1, null);
		this.runName = runName;
		this.token = token;
	}

	/** @return the run's name; never {@code null} */
	public String runName() {
		return this.runName;
	}

	/** @return the fencing token the run held when it lost its lease */
	public long token() {
		return this.token;
	}

}
