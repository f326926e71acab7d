package io.github.shardtenancy;

/**
 * A tenant that carries more than a threshold share of its shard's load: a candidate to isolate on a shard of its
 * own. Immutable.
 *
 * @param tenantId the tenant
 * @param shardId its shard
 * @param measure what the share is of
 * @param load the tenant's value of the measure
 * @param shardLoad the shard's total of the measure
 * @param share {@code load / shardLoad}, from 0 to 1
 */
public record HotTenant(String tenantId, String shardId, LoadMeasure measure, long load, long shardLoad,
		double share) {
}
