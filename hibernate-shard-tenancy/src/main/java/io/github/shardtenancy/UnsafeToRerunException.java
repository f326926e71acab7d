package io.github.shardtenancy;

import java.util.List;

/**
 * A retryable failure (a shard fence rejection, a shard that could not be reached, a serialization failure) ended an
 * attempt after work independent of the attempt's own transaction had already committed inside it: a
 * {@code REQUIRES_NEW} transaction, an earlier transaction of a unit of work that runs several in sequence, an
 * auto-commit statement. Running the attempt again would repeat that work, so the retry did not run it again; the
 * attempt's own transaction was rolled back, and what it lists {@linkplain #committedWork() as committed} stays
 * committed. Declare the unit of work safe to re-run (the retry's opt-in) if repeating it is harmless.
 *
 * <p>The tenant, shard and directory version are those of the rejection, where known. The cause is the rejection
 * (for a fence rejection, the database's {@link java.sql.SQLException}); the exception the attempt failed with, as
 * Spring or Hibernate wrapped it, is attached as a suppressed exception when it differs.
 */
public class UnsafeToRerunException extends ShardTenancyException {

	private final List<String> committedWork;

	private final int attempts;

	/**
	 * @param tenantId the tenant of the rejection, or {@code null}
	 * @param shardId the shard of the rejection, or {@code null}
	 * @param directoryVersion the directory version the rejected attempt was routed with, or {@code -1}
	 * @param attempts how many times the work ran, at least 1
	 * @param committedWork what committed inside the rejected attempt (transaction names, statements), in order;
	 * never {@code null} or empty
	 * @param rejection the failure that would otherwise have been retried; may be {@code null}
	 * @throws NullPointerException if {@code committedWork} is {@code null}
	 */
	public UnsafeToRerunException(String tenantId, String shardId, long directoryVersion, int attempts,
			List<String> committedWork, Throwable rejection) {
		super("Transaction for tenant " + quote(tenantId) + " was rejected"
				+ (shardId != null ? " on shard '" + shardId + "'" : "")
				+ (directoryVersion >= 0 ? " (directory version " + directoryVersion + ")" : "") + " in attempt "
				+ attempts + " after work independent of it had committed: " + String.join(", ", committedWork)
				+ ". It was not run again, because that would repeat the committed work; declare it safe to re-run "
				+ "(@SafeToRerun, ShardTenancyRetry.safeToRerun()) if repeating it is harmless. Rejection: "
				+ (rejection != null ? rejection.getMessage() : "none"), tenantId, shardId, directoryVersion,
				rejection);
		this.committedWork = List.copyOf(committedWork);
		this.attempts = attempts;
	}

	/** @return what committed inside the rejected attempt, in order; never empty, unmodifiable */
	public List<String> committedWork() {
		return this.committedWork;
	}

	/** @return how many times the work ran, the rejected attempt included; at least 1 */
	public int attempts() {
		return this.attempts;
	}

}
