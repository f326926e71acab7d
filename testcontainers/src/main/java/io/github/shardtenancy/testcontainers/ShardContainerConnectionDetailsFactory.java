package io.github.shardtenancy.testcontainers;

import io.github.shardtenancy.boot.ShardConnectionDetails;
import io.github.shardtenancy.boot.ShardTenancyConnectionDetails.JdbcDatabase;
import org.springframework.boot.testcontainers.service.connection.ContainerConnectionDetailsFactory;
import org.springframework.boot.testcontainers.service.connection.ContainerConnectionSource;
import org.testcontainers.containers.JdbcDatabaseContainer;

/**
 * A shard database of a JDBC database container annotated {@code @ServiceConnection(name = "shard-tenancy-shard")};
 * its shard id is the container label {@value ShardConnectionDetails#SHARD_ID_LABEL}, or else the container's database
 * name. Registered in {@code META-INF/spring.factories}.
 */
class ShardContainerConnectionDetailsFactory
		extends ContainerConnectionDetailsFactory<JdbcDatabaseContainer<?>, ShardConnectionDetails> {

	ShardContainerConnectionDetailsFactory() {
		super(ShardConnectionDetails.CONNECTION_NAME);
	}

	@Override
	protected ShardConnectionDetails getContainerConnectionDetails(
			ContainerConnectionSource<JdbcDatabaseContainer<?>> source) {
		return new Shard(source);
	}

	/** Read from the container once it is started (on first use). */
	static final class Shard extends ContainerConnectionDetails<JdbcDatabaseContainer<?>>
			implements ShardConnectionDetails {

		Shard(ContainerConnectionSource<JdbcDatabaseContainer<?>> source) {
			super(source);
		}

		@Override
		public String getShardId() {
			return ContainerDatabases.shardId(getContainer());
		}

		@Override
		public JdbcDatabase getDatabase() {
			return ContainerDatabases.database(getContainer());
		}

	}

}
