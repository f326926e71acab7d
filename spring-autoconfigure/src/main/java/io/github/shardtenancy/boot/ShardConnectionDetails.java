package io.github.shardtenancy.boot;

import org.springframework.boot.autoconfigure.service.connection.ConnectionDetails;

/**
 * One shard database of a development service (a Testcontainers container annotated
 * {@code @ServiceConnection(name = "shard-tenancy-shard")}, or a Docker Compose service labelled
 * {@code org.springframework.boot.service-connection: shard-tenancy-shard}). The default
 * {@link ShardTenancyConnectionDetails} adds the shard, or replaces the URL, user and password of
 * {@code shard-tenancy.shards.<id>} when that shard is configured too. One bean per shard id.
 */
public interface ShardConnectionDetails extends ConnectionDetails {

	/** The service connection name that marks a shard database. */
	String CONNECTION_NAME = "shard-tenancy-shard";

	/**
	 * The label (a container label, or a Docker Compose service label) naming the shard id of a shard database; without
	 * it the shard id is the name of the database.
	 */
	String SHARD_ID_LABEL = "io.github.shardtenancy.shard-id";

	/**
	 * @return the shard id; never {@code null}
	 */
	String getShardId();

	/**
	 * @return the shard database; never {@code null}
	 */
	ShardTenancyConnectionDetails.JdbcDatabase getDatabase();

}
