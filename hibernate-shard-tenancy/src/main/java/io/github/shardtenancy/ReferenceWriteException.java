package io.github.shardtenancy;

/**
 * A reference-data write that was refused before anything was recorded or committed: its statements failed on a
 * shard (a trial run, rolled back), no ACTIVE shard could be reached to try them, or a statement is not a write of a
 * reference table. Nothing changed on any shard; fix the cause and write again.
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
