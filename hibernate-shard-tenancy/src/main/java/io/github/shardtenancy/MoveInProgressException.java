package io.github.shardtenancy;

/**
 * A move was refused because the tenant already has an unfinished move (in this process or any other: the move log
 * in the directory database holds at most one unfinished move per tenant), or a move could not be resumed because
 * another live mover holds it.
 */
public class MoveInProgressException extends MoveException {

	private final String moveId;

	/**
	 * @param message what was refused, naming the tenant, shards and the move in progress
	 * @param tenantId the tenant
	 * @param shardId the tenant's shard
	 * @param directoryVersion the entry's directory version, or {@code -1}
	 * @param moveId the id of the move in progress, or {@code null} if unknown
	 */
	public MoveInProgressException(String message, String tenantId, String shardId, long directoryVersion,
			String moveId) {
		super(message, tenantId, shardId, directoryVersion, null);
		this.moveId = moveId;
	}

	/** @return the id of the move in progress, or {@code null} if it could not be read */
	public String moveId() {
		return this.moveId;
	}

}
