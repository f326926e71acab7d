package io.github.shardtenancy.testcontainers;

import java.util.Map;

import io.github.shardtenancy.boot.ShardConnectionDetails;
import io.github.shardtenancy.boot.ShardTenancyConnectionDetails;
import io.github.shardtenancy.boot.ShardTenancyDirectoryConnectionDetails;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.service.connection.ConnectionDetailsFactories;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.springframework.boot.testcontainers.service.connection.TestContainerConnectionSources;
import org.testcontainers.postgresql.PostgreSQLContainer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What Boot's service connection machinery makes of a {@code @ServiceConnection} JDBC container with our factories
 * registered, and how a container names its shard: neither needs the container started, so these run without Docker.
 */
@DisplayName("Testcontainers connection details factories")
class ContainerConnectionDetailsFactoriesTests {

	private static final String IMAGE = "postgres:17-alpine";

	@ServiceConnection(name = ShardTenancyDirectoryConnectionDetails.CONNECTION_NAME)
	private static PostgreSQLContainer directory;

	@ServiceConnection(name = ShardConnectionDetails.CONNECTION_NAME)
	private static PostgreSQLContainer shard;

	@ServiceConnection
	private static PostgreSQLContainer plain;

	private static ServiceConnection annotation(String field) throws NoSuchFieldException {
		return ContainerConnectionDetailsFactoriesTests.class.getDeclaredField(field)
			.getAnnotation(ServiceConnection.class);
	}

	private static Map<Class<?>, ?> detailsOf(String field, PostgreSQLContainer container) throws Exception {
		return new ConnectionDetailsFactories(null).getConnectionDetails(
				TestContainerConnectionSources.of(PostgreSQLContainer.class, IMAGE, annotation(field), container),
				false);
	}

	@Test
	@DisplayName("a container named shard-tenancy-directory gives the directory, not a shard")
	void directoryContainer() throws Exception {
		Map<Class<?>, ?> details = detailsOf("directory", new PostgreSQLContainer(IMAGE));
		assertThat(details).containsKey(ShardTenancyDirectoryConnectionDetails.class)
			.doesNotContainKey(ShardConnectionDetails.class)
			.doesNotContainKey(ShardTenancyConnectionDetails.class);
	}

	@Test
	@DisplayName("a container named shard-tenancy-shard gives a shard, not the directory")
	void shardContainer() throws Exception {
		Map<Class<?>, ?> details = detailsOf("shard", new PostgreSQLContainer(IMAGE));
		assertThat(details).containsKey(ShardConnectionDetails.class)
			.doesNotContainKey(ShardTenancyDirectoryConnectionDetails.class);
	}

	@Test
	@DisplayName("a container without either name gives neither")
	void otherContainer() throws Exception {
		Map<Class<?>, ?> details = detailsOf("plain", new PostgreSQLContainer(IMAGE));
		assertThat(details).doesNotContainKey(ShardConnectionDetails.class)
			.doesNotContainKey(ShardTenancyDirectoryConnectionDetails.class);
	}

	@Test
	@DisplayName("a shard's id is its io.github.shardtenancy.shard-id label, else its database name")
	void shardIdFromLabelOrDatabaseName() {
		assertThat(ContainerDatabases.shardId(new PostgreSQLContainer(IMAGE).withDatabaseName("eu-1")))
			.isEqualTo("eu-1");
		assertThat(ContainerDatabases.shardId(new PostgreSQLContainer(IMAGE).withDatabaseName("postgres")
			.withLabel(ShardConnectionDetails.SHARD_ID_LABEL, "shard-7"))).isEqualTo("shard-7");
	}

}
