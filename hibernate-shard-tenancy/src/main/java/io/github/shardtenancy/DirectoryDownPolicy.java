package io.github.shardtenancy;

/**
 * What the router does while the directory cannot be reached.
 */
public enum DirectoryDownPolicy {

	/**
	 * Cached ACTIVE entries keep routing; MIGRATING and FROZEN entries fail closed with
	 * {@link io.github.shardtenancy.TenantUnavailableException}; a cache miss raises
	 * {@link io.github.shardtenancy.DirectoryUnavailableException}. The default: placements change rarely, and the
	 * shard fence still rejects a route that went stale meanwhile.
	 */
	SERVE_FROM_CACHE,

	/** Every lookup raises {@link io.github.shardtenancy.DirectoryUnavailableException} until the directory is back. */
	FAIL_CLOSED

}
