package io.github.shardtenancy;

/**
 * A reference-data write that was refused before anything was recorded or committed: a shard refused its statements
 * (or an earlier logged write it misses), an ACTIVE shard could not be reached, or a statement is not a write of a
 * reference table. Every shard's transaction was rolled back: nothing changed on any shard. {@link #shardId()} names
 * the shard, the message gives the database's reason; fix the cause and write again.
 */
public class ReferenceWriteException extends ShardTenancyException {

	/**
	 * @param message what was refused and why
	 * @param shardId the shard the statements failed on, or {@code null}
	 * @param cause the database error, or {@code null}
	 */
	public ReferenceWriteException(String message, String shardId, Throwable cause) {
		super(message, null, shardId, -1, cause);
	}

}
