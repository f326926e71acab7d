package io.github.shardtenancy;

/**
 * A tenant move could not start or could not finish: the tenant is not ACTIVE, is already moving, the target is its
 * current owner or not in the topology, a table lacks a tenant column, or verification found a difference. The
 * tenant is left routable on its source shard unless the message says otherwise.
 */
public class MoveException extends ShardTenancyException {

	/**
	 * @param message what went wrong
	 * @param tenantId the tenant being moved
	 * @param shardId the shard concerned
	 * @param directoryVersion the directory version when it failed, or {@code -1}
	 * @param cause the underlying failure, or {@code null}
	 */
	public MoveException(String message, String tenantId, String shardId, long directoryVersion, Throwable cause) {
		super(message, tenantId, shardId, directoryVersion, cause);
	}

}
