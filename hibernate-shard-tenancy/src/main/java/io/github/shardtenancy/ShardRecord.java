package io.github.shardtenancy;

/**
 * One row of the shard registry.
 *
 * @param shardId the logical shard id
 * @param region its region, or {@code null}
 * @param state ACTIVE or RETIRED
 * @param jdbcUrl the JDBC URL other instances connect with, or {@code null} if the shard was registered with a pool
 * only this instance has
 * @param username the database user, or {@code null}
 * @param version the directory version of the row's last change
 */
public record ShardRecord(String shardId, String region, ShardState state, String jdbcUrl, String username,
		long version) {
}
