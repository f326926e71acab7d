package io.github.shardtenancy.internal.jdbc;

/**
 * What a tenant connection was handed out for: the tenant, its shard and the directory version of the route. Named in
 * errors, bound in the fence begin, quoted in committed-work records.
 * @param tenantId the tenant, already validated
 * @param shardId the shard
 * @param directoryVersion the directory version of the route
 */
record Route(String tenantId, String shardId, long directoryVersion) {
}
