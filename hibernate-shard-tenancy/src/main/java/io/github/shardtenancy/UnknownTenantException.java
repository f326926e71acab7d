package io.github.shardtenancy;

/**
 * The directory has no entry for the tenant. Raised by the router on a lookup, before any shard connection is
 * taken. The answer is remembered for a few seconds only (the negative cache TTL), so a tenant created a moment ago
 * becomes routable quickly.
 */
public class UnknownTenantException extends ShardTenancyException {

	/**
	 * @param tenantId the tenant looked up
	 * @param directoryVersion the directory version the router held when it answered
	 */
	public UnknownTenantException(String tenantId, long directoryVersion) {
		super("Unknown tenant " + quote(tenantId) + ": the directory has no entry for it (directory version "
				+ directoryVersion + ")", tenantId, null, directoryVersion, null);
	}

}
