package io.github.shardtenancy;

import java.util.Objects;

/**
 * One tenant's load figures. Immutable.
 *
 * @param tenantId the tenant
 * @param shardId the shard that owns it (its traffic: the shard it was routed to last)
 * @param transactions transactions of the tenant that ended on this instance in the load window (commits, rollbacks,
 * statements run in auto-commit mode); 0 when load tracking is off
 * @param rowsWritten rows reported written by its committed transactions on this instance in the window
 * (update and batch counts)
 * @param nanosSpent time its shard connections were held on this instance in the window, in nanoseconds (with
 * Hibernate's handling mode of {@link ShardTenancy#hibernateSettings()}, one connection per transaction)
 * @param rowsStored rows in its tenant tables as last counted on its shard, or {@code -1} if not measured
 * @param bytesStored bytes of those rows as the shard's database estimates them, or {@code -1} if not measured or the
 * database gives no estimate (H2)
 */
public record TenantLoad(String tenantId, String shardId, long transactions, long rowsWritten, long nanosSpent,
		long rowsStored, long bytesStored) {

	public TenantLoad {
		Objects.requireNonNull(tenantId, "tenantId");
		Objects.requireNonNull(shardId, "shardId");
	}

}
