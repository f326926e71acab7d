package io.github.shardtenancy.it.rerunstate;

import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.DisplayName;

/** {@link RerunStateContract} on H2 in-memory databases. */
@DisplayName("H2: a re-run of a @Transactional JDBC service method and the state its failed attempt left behind")
class H2RerunStateTest extends RerunStateContract {

	private final String cluster = "rerun-state-" + UUID.randomUUID().toString().substring(0, 8);

	@Override
	List<String> databaseProperties() {
		return List.of("shard-tenancy.directory.url=" + url("directory"), "shard-tenancy.shards.shard-1.url=" + url("shard-1"),
				"shard-tenancy.shards.shard-2.url=" + url("shard-2"));
	}

	private String url(String database) {
		return "jdbc:h2:mem:" + this.cluster + "-" + database + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000";
	}

}
