package io.github.shardtenancy.testcontainers;

import io.github.shardtenancy.boot.ShardConnectionDetails;
import io.github.shardtenancy.boot.ShardTenancyConnectionDetails.JdbcDatabase;
import org.testcontainers.containers.JdbcDatabaseContainer;

/** What a JDBC database container gives the tenancy: its database and, for a shard, its shard id. Stateless. */
final class ContainerDatabases {

	private ContainerDatabases() {
	}

	/**
	 * @param container a started container
	 * @return its JDBC URL, user and password
	 */
	static JdbcDatabase database(JdbcDatabaseContainer<?> container) {
		return new JdbcDatabase(container.getJdbcUrl(), container.getUsername(), container.getPassword());
	}

	/**
	 * @param container a container, started or not
	 * @return the container label {@value ShardConnectionDetails#SHARD_ID_LABEL} if set, else its database name
	 */
	static String shardId(JdbcDatabaseContainer<?> container) {
		String label = container.getLabels().get(ShardConnectionDetails.SHARD_ID_LABEL);
		return (label != null && !label.isBlank()) ? label : container.getDatabaseName();
	}

}
