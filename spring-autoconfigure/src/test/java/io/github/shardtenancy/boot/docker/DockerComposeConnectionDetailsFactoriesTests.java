package io.github.shardtenancy.boot.docker;

import java.util.List;
import java.util.Map;

import io.github.shardtenancy.boot.ShardConnectionDetails;
import io.github.shardtenancy.boot.ShardTenancyConnectionDetails.JdbcDatabase;
import io.github.shardtenancy.boot.ShardTenancyDirectoryConnectionDetails;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.service.connection.ConnectionDetailsFactories;
import org.springframework.boot.docker.compose.core.ConnectionPorts;
import org.springframework.boot.docker.compose.core.ImageReference;
import org.springframework.boot.docker.compose.core.RunningService;
import org.springframework.boot.docker.compose.service.connection.TestDockerComposeConnectionSources;
import org.springframework.boot.jdbc.autoconfigure.JdbcConnectionDetails;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What Boot's Docker Compose support makes of a running {@code postgres} service with our factories registered (Boot
 * asks every registered factory about each service, as here): the labels choose directory or shard, the image's
 * variables and the published port give the database. Runs without Docker: the running services are described here.
 */
@DisplayName("Docker Compose connection details factories")
class DockerComposeConnectionDetailsFactoriesTests {

	private static Map<Class<?>, ?> detailsOf(RunningService service) {
		return new ConnectionDetailsFactories(null)
			.getConnectionDetails(TestDockerComposeConnectionSources.of(service), false);
	}

	@Test
	@DisplayName("a service labelled shard-tenancy-directory is the directory, with the image's user, password and "
			+ "database and the published port")
	void directoryService() {
		Map<Class<?>, ?> details = detailsOf(new Service(Map.of("org.springframework.boot.service-connection",
				"shard-tenancy-directory"), Map.of("POSTGRES_USER", "app", "POSTGRES_PASSWORD", "secret", "POSTGRES_DB",
						"directory")));

		assertThat(details).doesNotContainKey(ShardConnectionDetails.class)
			.as("Boot's own postgres factory is keyed by the connection name, which the label replaces")
			.doesNotContainKey(JdbcConnectionDetails.class);
		assertThat(((ShardTenancyDirectoryConnectionDetails) details.get(ShardTenancyDirectoryConnectionDetails.class))
			.getDatabase())
			.isEqualTo(new JdbcDatabase("jdbc:postgresql://127.0.0.1:54321/directory", "app", "secret"));
	}

	@Test
	@DisplayName("a service labelled shard-tenancy-shard is a shard named by its io.github.shardtenancy.shard-id label")
	void shardServiceWithIdLabel() {
		ShardConnectionDetails shard = (ShardConnectionDetails) detailsOf(new Service(
				Map.of("org.springframework.boot.service-connection", "shard-tenancy-shard",
						ShardConnectionDetails.SHARD_ID_LABEL, "eu-1"),
				Map.of("POSTGRES_PASSWORD", "pw", "POSTGRES_DB", "orders")))
			.get(ShardConnectionDetails.class);

		assertThat(shard.getShardId()).isEqualTo("eu-1");
		assertThat(shard.getDatabase())
			.isEqualTo(new JdbcDatabase("jdbc:postgresql://127.0.0.1:54321/orders", "postgres", "pw"));
	}

	@Test
	@DisplayName("without the id label a shard is named by its database, which defaults to the user")
	void shardServiceNamedByDatabase() {
		Map<String, String> labels = Map.of("org.springframework.boot.service-connection", "shard-tenancy-shard");
		ShardConnectionDetails named = (ShardConnectionDetails) detailsOf(
				new Service(labels, Map.of("POSTGRES_DB", "shard-2"))).get(ShardConnectionDetails.class);
		ShardConnectionDetails byUser = (ShardConnectionDetails) detailsOf(
				new Service(labels, Map.of("POSTGRES_USER", "shard-3"))).get(ShardConnectionDetails.class);

		assertThat(named.getShardId()).isEqualTo("shard-2");
		assertThat(byUser.getShardId()).isEqualTo("shard-3");
		assertThat(byUser.getDatabase().jdbcUrl()).endsWith("/shard-3");
		assertThat(byUser.getDatabase().password()).isNull();
	}

	@Test
	@DisplayName("an unlabelled postgres service is neither (it stays Boot's JDBC connection)")
	void unlabelledService() {
		Map<Class<?>, ?> details = detailsOf(new Service(Map.of(), Map.of("POSTGRES_PASSWORD", "pw")));

		assertThat(details).doesNotContainKey(ShardConnectionDetails.class)
			.doesNotContainKey(ShardTenancyDirectoryConnectionDetails.class)
			.containsKey(JdbcConnectionDetails.class);
	}

	/** A running {@code postgres:17} service on 127.0.0.1, its port 5432 published as 54321. */
	private record Service(Map<String, String> labels, Map<String, String> env) implements RunningService {

		@Override
		public String name() {
			return "db";
		}

		@Override
		public ImageReference image() {
			return ImageReference.of("postgres:17");
		}

		@Override
		public String host() {
			return "127.0.0.1";
		}

		@Override
		public ConnectionPorts ports() {
			return new ConnectionPorts() {

				@Override
				public int get(int containerPort) {
					if (containerPort != 5432) {
						throw new IllegalStateException("No host port mapping found for container port " + containerPort);
					}
					return 54321;
				}

				@Override
				public List<Integer> getAll() {
					return List.of(54321);
				}

				@Override
				public List<Integer> getAll(String protocol) {
					return List.of(54321);
				}

			};
		}

	}

}
