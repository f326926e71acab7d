package io.github.shardtenancy.it.rerunstate;

import java.util.List;

import io.github.shardtenancy.it.support.BootProperties;
import io.github.shardtenancy.testing.pg.PostgresCluster;
import org.junit.jupiter.api.DisplayName;

/** {@link RerunStateContract} on the PostgreSQL servers of {@link PostgresCluster}. */
@DisplayName("PostgreSQL: a re-run of a @Transactional JDBC service method and the state its failed attempt left behind")
class PostgresRerunStateTest extends RerunStateContract {

	@Override
	List<String> databaseProperties() {
		return BootProperties.connectingTo(PostgresCluster.shared());
	}

}
