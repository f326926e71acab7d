package io.github.shardtenancy.liquibase;

/**
 * A shard database already records another logical shard id than the one being migrated: two shard ids are
 * configured with the same database. Routing both would let a move between them copy a tenant onto itself and then
 * clean its rows away, so the migration refuses. The recorded id lives in {@code shard_fence_identity}; to rename a
 * shard on purpose, update that row first.
 */
public class ShardIdentityConflictException extends IllegalStateException {

	private final String shardId;

	private final String recordedShardId;

	/**
	 * @param shardId the shard id being migrated
	 * @param recordedShardId the shard id the database already belongs to
	 */
	public ShardIdentityConflictException(String shardId, String recordedShardId) {
		super("The database of shard '" + shardId + "' already belongs to shard '" + recordedShardId
				+ "': each shard id needs a database of its own (are two shards configured with the same URL?)");
		this.shardId = shardId;
		this.recordedShardId = recordedShardId;
	}

	/** @return the shard id being migrated; never {@code null} */
	public String shardId() {
		return this.shardId;
	}

	/** @return the shard id the database already belongs to; never {@code null} */
	public String recordedShardId() {
		return this.recordedShardId;
	}

}
