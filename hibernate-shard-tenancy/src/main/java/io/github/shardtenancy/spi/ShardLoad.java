package io.github.shardtenancy.spi;

/**
 * One placement candidate: an ACTIVE registered shard and how many tenants it owns.
 *
 * @param shardId the shard
 * @param region its region, or {@code null} if none was registered
 * @param tenants the tenants whose entry names it as owner, DELETED ones excluded
 */
public record ShardLoad(String shardId, String region, long tenants) {
}
