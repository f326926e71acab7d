package io.github.shardtenancy;

/**
 * One read replica of a shard as recorded in the directory database (table {@code shard_replica}).
 *
 * @param shardId the shard whose replica it is
 * @param name its name, unique within the shard
 * @param jdbcUrl the JDBC URL other instances connect with
 * @param username the database user, or {@code null}
 * @param version the directory version of the row's last change
 */
public record ReplicaRecord(String shardId, String name, String jdbcUrl, String username, long version) {
}
