package io.github.shardtenancy.testcontainers;

import io.github.shardtenancy.boot.ShardTenancyConnectionDetails.JdbcDatabase;
import io.github.shardtenancy.boot.ShardTenancyDirectoryConnectionDetails;
import org.springframework.boot.testcontainers.service.connection.ContainerConnectionDetailsFactory;
import org.springframework.boot.testcontainers.service.connection.ContainerConnectionSource;
import org.testcontainers.containers.JdbcDatabaseContainer;

/**
 * The directory database of a JDBC database container annotated
 * {@code @ServiceConnection(name = "shard-tenancy-directory")}. Registered in {@code META-INF/spring.factories}.
 */
class DirectoryContainerConnectionDetailsFactory
		extends ContainerConnectionDetailsFactory<JdbcDatabaseContainer<?>, ShardTenancyDirectoryConnectionDetails> {

	DirectoryContainerConnectionDetailsFactory() {
		super(ShardTenancyDirectoryConnectionDetails.CONNECTION_NAME);
	}

	@Override
	protected ShardTenancyDirectoryConnectionDetails getContainerConnectionDetails(
			ContainerConnectionSource<JdbcDatabaseContainer<?>> source) {
		return new Directory(source);
	}

	/** Read from the container once it is started (on first use). */
	static final class Directory extends ContainerConnectionDetails<JdbcDatabaseContainer<?>>
			implements ShardTenancyDirectoryConnectionDetails {

		Directory(ContainerConnectionSource<JdbcDatabaseContainer<?>> source) {
			super(source);
		}

		@Override
		public JdbcDatabase getDatabase() {
			return ContainerDatabases.database(getContainer());
		}

	}

}
