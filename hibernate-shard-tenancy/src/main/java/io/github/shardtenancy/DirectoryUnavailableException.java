package io.github.shardtenancy;

/**
 * The directory database could not be reached when the router needed it: a cache miss, or any lookup under the
 * {@code fail-closed} policy. Cached ACTIVE entries keep routing under the default {@code serve-from-cache} policy.
 */
public class DirectoryUnavailableException extends ShardTenancyException {

	/**
	 * @param tenantId the tenant being looked up, or {@code null}
	 * @param directoryVersion the directory version the router holds
	 * @param cause the failure talking to the directory
	 */
	public DirectoryUnavailableException(String tenantId, long directoryVersion, Throwable cause) {
		super("Directory unavailable" + (tenantId != null ? " while resolving tenant " + quote(tenantId) : "")
				+ " (cached directory version " + directoryVersion + "): "
				+ (cause != null ? cause.getMessage() : "unknown cause"), tenantId, null, directoryVersion, cause);
	}

}
