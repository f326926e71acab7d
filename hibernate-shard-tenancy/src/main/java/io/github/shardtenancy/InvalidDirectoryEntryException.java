package io.github.shardtenancy;

/**
 * A row of the directory's entry table breaks the schema's rules: an unknown state, an epoch or version below 1, or
 * a missing shard. Such a row was not written by the library (a manual edit, a botched migration); the tenant it
 * belongs to cannot be routed until the row is repaired, and every other tenant keeps routing: the router's sync and
 * snapshot skip the row (and log it), and a lookup of that tenant raises this exception.
 *
 * <p>The message names the row: tenant, shard, state, epoch and version as read. {@link #tenantId()},
 * {@link #shardId()} and {@link #directoryVersion()} carry them too.
 */
public class InvalidDirectoryEntryException extends ShardTenancyException {

	/**
	 * @param message the description naming the row
	 * @param tenantId the row's tenant
	 * @param shardId the row's shard, or {@code null}
	 * @param directoryVersion the row's version
	 * @param cause what the row broke
	 */
	public InvalidDirectoryEntryException(String message, String tenantId, String shardId, long directoryVersion,
			Throwable cause) {
		super(message, tenantId, shardId, directoryVersion, cause);
	}

}
