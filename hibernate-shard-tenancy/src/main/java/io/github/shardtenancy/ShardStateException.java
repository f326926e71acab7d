package io.github.shardtenancy;

/**
 * A shard registry operation was refused: retiring a shard that still owns tenants (or slots, or overrides), or
 * using a shard that is not registered or already retired. Nothing was changed.
 */
public class ShardStateException extends ShardTenancyException {

	/**
	 * @param message what was refused and why, naming what the shard still owns
	 * @param shardId the shard
	 * @param directoryVersion the directory version the refusal was decided at, or {@code -1}
	 */
	public ShardStateException(String message, String shardId, long directoryVersion) {
		super(message, null, shardId, directoryVersion, null);
	}

}
