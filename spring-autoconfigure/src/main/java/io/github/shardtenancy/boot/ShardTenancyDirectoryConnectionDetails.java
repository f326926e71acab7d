package io.github.shardtenancy.boot;

import org.springframework.boot.autoconfigure.service.connection.ConnectionDetails;

/**
 * The directory database of a development service (a Testcontainers container annotated
 * {@code @ServiceConnection(name = "shard-tenancy-directory")}, or a Docker Compose service labelled
 * {@code org.springframework.boot.service-connection: shard-tenancy-directory}). When a bean of this type exists, the
 * default {@link ShardTenancyConnectionDetails} takes the directory from it instead of
 * {@code shard-tenancy.directory.*}. At most one such bean may exist.
 */
public interface ShardTenancyDirectoryConnectionDetails extends ConnectionDetails {

	/** The service connection name that marks the directory database. */
	String CONNECTION_NAME = "shard-tenancy-directory";

	/**
	 * @return the directory database; never {@code null}
	 */
	ShardTenancyConnectionDetails.JdbcDatabase getDatabase();

}
