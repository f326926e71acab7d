package io.github.shardtenancy;

import java.util.Objects;

/**
 * One directory entry as the router caches it: where a tenant lives and how new that knowledge is.
 *
 * @param tenantId the tenant, a valid tenant id
 * @param shardId the logical id of the owner shard, never {@code null}
 * @param state the entry's state, never {@code null}
 * @param targetShardId the shard a move is taking the tenant to, or {@code null} when no move is in progress
 * @param epoch per-entry counter, bumped by every change to this entry, {@code >= 1}
 * @param version the global directory version at which this entry last changed, {@code >= 1}; it is the version the
 * connection provider sends to the shard fence with every transaction
 */
public record DirectoryEntry(String tenantId, String shardId, TenantState state, String targetShardId, long epoch,
		long version) {

	/**
	 * @throws NullPointerException if tenant, shard or state is {@code null}
	 * @throws IllegalArgumentException if epoch or version is below 1
	 */
	public DirectoryEntry {
		Objects.requireNonNull(tenantId, "tenantId");
		Objects.requireNonNull(shardId, "shardId");
		Objects.requireNonNull(state, "state");
		if (epoch < 1 || version < 1) {
			throw new IllegalArgumentException("Directory entry for tenant '" + tenantId + "' has epoch " + epoch
					+ " and version " + version + "; both must be at least 1");
		}
	}

	/** @return whether the entry is at least as new as {@code other} (by directory version) */
	public boolean isNewerOrSameAs(DirectoryEntry other) {
		return other == null || this.version >= other.version;
	}

}
