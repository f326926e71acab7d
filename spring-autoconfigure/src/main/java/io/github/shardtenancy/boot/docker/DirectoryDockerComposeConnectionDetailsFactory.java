package io.github.shardtenancy.boot.docker;

import io.github.shardtenancy.boot.ShardTenancyConnectionDetails.JdbcDatabase;
import io.github.shardtenancy.boot.ShardTenancyDirectoryConnectionDetails;
import org.springframework.boot.docker.compose.service.connection.DockerComposeConnectionDetailsFactory;
import org.springframework.boot.docker.compose.service.connection.DockerComposeConnectionSource;

/**
 * The directory database of a PostgreSQL Compose service labelled
 * {@code org.springframework.boot.service-connection: shard-tenancy-directory}. Registered in
 * {@code META-INF/spring.factories}.
 */
class DirectoryDockerComposeConnectionDetailsFactory
		extends DockerComposeConnectionDetailsFactory<ShardTenancyDirectoryConnectionDetails> {

	DirectoryDockerComposeConnectionDetailsFactory() {
		super(ShardTenancyDirectoryConnectionDetails.CONNECTION_NAME);
	}

	@Override
	protected ShardTenancyDirectoryConnectionDetails getDockerComposeConnectionDetails(
			DockerComposeConnectionSource source) {
		return new Directory(source);
	}

	static final class Directory extends DockerComposeConnectionDetails
			implements ShardTenancyDirectoryConnectionDetails {

		private final JdbcDatabase database;

		Directory(DockerComposeConnectionSource source) {
			super(source.getRunningService());
			this.database = PostgresServiceDatabase.database(source.getRunningService());
		}

		@Override
		public JdbcDatabase getDatabase() {
			return this.database;
		}

	}

}
