package io.github.shardtenancy.it.paths;

import java.util.ArrayList;
import java.util.List;

import io.github.shardtenancy.testing.pg.PostgresCluster;
import io.github.shardtenancy.testing.pg.PostgresServer;
import org.junit.jupiter.api.DisplayName;

/** {@link JdbcPathsContract} on the PostgreSQL servers of {@link PostgresCluster}. */
@DisplayName("PostgreSQL: JDBC and native SQL paths of an ordinary Spring application")
class PostgresJdbcPathsTest extends JdbcPathsContract {

	@Override
	List<String> databaseProperties() {
		PostgresCluster cluster = PostgresCluster.shared();
		List<String> properties = new ArrayList<>(server("shard-tenancy.directory.", cluster.directory()));
		for (String shard : List.of("shard-1", "shard-2")) {
			properties.addAll(server("shard-tenancy.shards." + shard + ".", cluster.shard(shard)));
		}
		return properties;
	}

	private static List<String> server(String prefix, PostgresServer server) {
		return List.of(prefix + "url=" + server.jdbcUrl(), prefix + "username=" + server.user(),
				prefix + "password=" + server.password());
	}

	@Override
	String createTemporaryTable(String name) {
		return "CREATE TEMPORARY TABLE " + name + " (n INT) ON COMMIT DROP";
	}

}
