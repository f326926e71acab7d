package io.github.shardtenancy.boot.docker;

import io.github.shardtenancy.boot.ShardConnectionDetails;
import io.github.shardtenancy.boot.ShardTenancyConnectionDetails.JdbcDatabase;
import org.springframework.boot.docker.compose.service.connection.DockerComposeConnectionDetailsFactory;
import org.springframework.boot.docker.compose.service.connection.DockerComposeConnectionSource;

/**
 * A shard database of a PostgreSQL Compose service labelled
 * {@code org.springframework.boot.service-connection: shard-tenancy-shard}; its shard id is the label
 * {@value ShardConnectionDetails#SHARD_ID_LABEL}, or else the name of its database ({@code POSTGRES_DB}). Registered in
 * {@code META-INF/spring.factories}.
 */
class ShardDockerComposeConnectionDetailsFactory extends DockerComposeConnectionDetailsFactory<ShardConnectionDetails> {

	ShardDockerComposeConnectionDetailsFactory() {
		super(ShardConnectionDetails.CONNECTION_NAME);
	}

	@Override
	protected ShardConnectionDetails getDockerComposeConnectionDetails(DockerComposeConnectionSource source) {
		return new Shard(source);
	}

	static final class Shard extends DockerComposeConnectionDetails implements ShardConnectionDetails {

		private final String shardId;

		private final JdbcDatabase database;

		Shard(DockerComposeConnectionSource source) {
			super(source.getRunningService());
			this.shardId = PostgresServiceDatabase.shardId(source.getRunningService());
			this.database = PostgresServiceDatabase.database(source.getRunningService());
		}

		@Override
		public String getShardId() {
			return this.shardId;
		}

		@Override
		public JdbcDatabase getDatabase() {
			return this.database;
		}

	}

}
