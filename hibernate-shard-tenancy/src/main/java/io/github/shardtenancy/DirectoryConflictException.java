package io.github.shardtenancy;

/**
 * A directory write found the entry in a state other than the one it expected: creating a tenant that exists,
 * changing an entry whose epoch moved on since it was read, or a move step applied to an entry in the wrong state.
 * Nothing was written.
 */
public class DirectoryConflictException extends ShardTenancyException {

	/**
	 * @param message what was expected and what was found
	 * @param tenantId the tenant
	 * @param shardId the entry's current owner, or {@code null}
	 * @param directoryVersion the entry's current version, or {@code -1}
	 */
	public DirectoryConflictException(String message, String tenantId, String shardId, long directoryVersion) {
		super(message, tenantId, shardId, directoryVersion, null);
	}

}
