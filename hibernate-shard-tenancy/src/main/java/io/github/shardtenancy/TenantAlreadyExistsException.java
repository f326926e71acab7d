package io.github.shardtenancy;

/**
 * Creating a tenant that already has a directory entry (in any state, DELETED included), also when another instance
 * created it at the same moment. Nothing was written.
 */
public class TenantAlreadyExistsException extends DirectoryConflictException {

	/**
	 * @param tenantId the tenant
	 * @param shardId its existing entry's owner, or {@code null} when the entry was created concurrently and not read
	 * @param directoryVersion its existing entry's version, or {@code -1}
	 */
	public TenantAlreadyExistsException(String tenantId, String shardId, long directoryVersion) {
		super("Tenant " + quote(tenantId) + " already exists" + (shardId != null ? " on shard '" + shardId + "'" : "")
				+ (directoryVersion >= 0 ? " (directory version " + directoryVersion + ")" : ""), tenantId, shardId,
				directoryVersion);
	}

}
