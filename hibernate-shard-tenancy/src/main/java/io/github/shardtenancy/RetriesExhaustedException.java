package io.github.shardtenancy;

/**
 * A transaction was rejected by the shard fence (or by a genuine serialization failure, when those are retried) on
 * every attempt the retry budget allowed. The last rejection is the cause.
 */
public class RetriesExhaustedException extends ShardTenancyException {

	private final int attempts;

	/**
	 * @param tenantId the tenant of the last rejection, or {@code null}
	 * @param shardId the shard of the last rejection, or {@code null}
	 * @param directoryVersion the version the last attempt was routed with, or {@code -1}
	 * @param attempts how many times the transaction ran
	 * @param lastRejection the last failure
	 */
	public RetriesExhaustedException(String tenantId, String shardId, long directoryVersion, int attempts,
			Throwable lastRejection) {
		super("Transaction for tenant " + quote(tenantId) + " gave up after " + attempts + " attempts; last rejection"
				+ (shardId != null ? " on shard '" + shardId + "'" : "") + ": "
				+ (lastRejection != null ? lastRejection.getMessage() : "none"), tenantId, shardId, directoryVersion,
				lastRejection);
		this.attempts = attempts;
	}

	/** @return how many times the transaction ran, at least 1 */
	public int attempts() {
		return this.attempts;
	}

}
