package io.github.shardtenancy;

import java.time.Instant;

/**
 * One row of the directory's history table: who changed which entry, when, from what to what.
 *
 * @param tenantId the tenant
 * @param version the directory version the change produced
 * @param epoch the entry's epoch after the change
 * @param fromShardId the owner before, or {@code null} when the entry was created
 * @param toShardId the owner after
 * @param fromState the state before, or {@code null} when created
 * @param toState the state after
 * @param targetShardId the move target after the change, or {@code null}
 * @param changedAt when the change committed (directory database clock)
 * @param changedBy who made it (free text given by the caller, e.g. {@code mover@host})
 */
public record DirectoryHistoryRecord(String tenantId, long version, long epoch, String fromShardId, String toShardId,
		TenantState fromState, TenantState toState, String targetShardId, Instant changedAt, String changedBy) {
}
