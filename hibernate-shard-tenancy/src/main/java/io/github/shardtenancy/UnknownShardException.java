package io.github.shardtenancy;

/** A logical shard id is not part of the topology (not configured, or retired). */
public class UnknownShardException extends ShardTenancyException {

	/**
	 * @param shardId the shard asked for
	 * @param tenantId the tenant routed to it, or {@code null}
	 * @param directoryVersion the entry's directory version, or {@code -1}
	 */
	public UnknownShardException(String shardId, String tenantId, long directoryVersion) {
		super("Unknown shard '" + shardId + "'" + (tenantId != null ? " for tenant " + quote(tenantId) : "")
				+ (directoryVersion >= 0 ? " (directory version " + directoryVersion + ")" : "")
				+ ": it is not in the topology", tenantId, shardId, directoryVersion, null);
	}

}
