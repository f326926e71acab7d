package io.github.shardtenancy;

/**
 * No usable connection could be had from the pool of the shard that owns the tenant: the shard's server is down,
 * refuses connections, or its pool timed out; or the pooled connection turned out to be broken (the server restarted)
 * when the transaction's first statement, the fence check, ran on it. Raised by the connection provider before any
 * statement of the work ran, so nothing was written and the work can be run again as it is (the retry does so, with
 * backoff, up to its attempt budget, without touching the router's cache: the route is right, the shard is not
 * there).
 *
 * <p>Carries the tenant, the shard and the directory version the work was routed with; the cause is the pool's or
 * the driver's {@link java.sql.SQLException}.
 */
public class ShardUnavailableException extends ShardTenancyException {

	/**
	 * @param tenantId the tenant whose work was routed to the shard
	 * @param shardId the shard that could not be reached
	 * @param directoryVersion the directory version of the route
	 * @param cause the failure to borrow a connection
	 */
	public ShardUnavailableException(String tenantId, String shardId, long directoryVersion, Throwable cause) {
		super("Shard '" + shardId + "' unavailable for tenant " + quote(tenantId) + " (directory version "
				+ directoryVersion + "): " + (cause != null ? cause.getMessage() : "unknown cause"), tenantId, shardId,
				directoryVersion, cause);
	}

}
