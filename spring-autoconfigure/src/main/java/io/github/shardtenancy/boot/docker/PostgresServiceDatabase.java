package io.github.shardtenancy.boot.docker;

import java.util.Map;

import io.github.shardtenancy.boot.ShardConnectionDetails;
import io.github.shardtenancy.boot.ShardTenancyConnectionDetails.JdbcDatabase;
import org.springframework.boot.docker.compose.core.RunningService;

/**
 * The database of a running {@code postgres} Compose service, from the variables of the official image
 * ({@code POSTGRES_USER}, default {@code postgres}; {@code POSTGRES_PASSWORD}; {@code POSTGRES_DB}, default the user)
 * and the host port published for 5432. Stateless.
 * @see <a href="https://hub.docker.com/_/postgres">The postgres image's environment variables</a>
 */
final class PostgresServiceDatabase {

	private static final int POSTGRES_PORT = 5432;

	private PostgresServiceDatabase() {
	}

	/**
	 * @param service the running service
	 * @return its database: {@code jdbc:postgresql://<host>:<published port>/<database>} and the user
	 * @throws IllegalStateException if the service publishes no port for 5432
	 */
	static JdbcDatabase database(RunningService service) {
		Map<String, String> env = service.env();
		String user = env.getOrDefault("POSTGRES_USER", "postgres");
		String password = env.get("POSTGRES_PASSWORD");
		String url = "jdbc:postgresql://" + service.host() + ":" + service.ports().get(POSTGRES_PORT) + "/"
				+ databaseName(service);
		return new JdbcDatabase(url, user, password);
	}

	/**
	 * @param service the running service
	 * @return the label {@value ShardConnectionDetails#SHARD_ID_LABEL} if set, else the name of its database
	 */
	static String shardId(RunningService service) {
		String label = service.labels().get(ShardConnectionDetails.SHARD_ID_LABEL);
		return (label != null && !label.isBlank()) ? label : databaseName(service);
	}

	private static String databaseName(RunningService service) {
		Map<String, String> env = service.env();
		String database = env.get("POSTGRES_DB");
		return (database != null && !database.isBlank()) ? database : env.getOrDefault("POSTGRES_USER", "postgres");
	}

}
