package io.github.shardtenancy;

import java.time.Instant;

/**
 * Who owned a tenant at some moment, from the directory history.
 *
 * @param tenantId the tenant
 * @param shardId the owner shard
 * @param state the entry's state then (an entry FROZEN for a move is still owned by its source)
 * @param version the directory version of the change that made it so
 * @param since when that change committed (directory database clock)
 * @param changedBy who made it
 */
public record Ownership(String tenantId, String shardId, TenantState state, long version, Instant since,
		String changedBy) {
}
