package io.github.shardtenancy.it.paths;

import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.DisplayName;

/** {@link JdbcPathsContract} on H2 in-memory databases. */
@DisplayName("H2: JDBC and native SQL paths of an ordinary Spring application")
class H2JdbcPathsTest extends JdbcPathsContract {

	private final String cluster = "paths-" + UUID.randomUUID().toString().substring(0, 8);

	@Override
	List<String> databaseProperties() {
		return List.of("shard-tenancy.directory.url=" + url("directory"), "shard-tenancy.shards.shard-1.url=" + url("shard-1"),
				"shard-tenancy.shards.shard-2.url=" + url("shard-2"));
	}

	private String url(String database) {
		return "jdbc:h2:mem:" + this.cluster + "-" + database + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000";
	}

	@Override
	String createTemporaryTable(String name) {
		return "CREATE LOCAL TEMPORARY TABLE " + name + " (n INT) TRANSACTIONAL";
	}

}
