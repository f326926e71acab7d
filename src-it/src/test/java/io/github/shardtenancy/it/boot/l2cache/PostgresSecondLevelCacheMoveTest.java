package io.github.shardtenancy.it.boot.l2cache;

import java.util.ArrayList;
import java.util.List;

import io.github.shardtenancy.testing.pg.PostgresCluster;
import io.github.shardtenancy.testing.pg.PostgresServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;

/**
 * {@link SecondLevelCacheMoveScenarios} on the shared PostgreSQL cluster: the fence begin travels with the first
 * {@code select}, so an attempt that reads only from the second-level cache is rejected at its first write.
 */
@DisplayName("Second-level and query caches stay coherent across tenant moves (PostgreSQL, two Spring Boot instances)")
class PostgresSecondLevelCacheMoveTest extends SecondLevelCacheMoveScenarios {

	private static List<String> databases;

	private static WalletInstance a;

	private static WalletInstance b;

	@BeforeAll
	static void start() {
		PostgresCluster cluster = PostgresCluster.shared();
		databases = new ArrayList<>(properties("shard-tenancy.directory", cluster.directory()));
		for (String shard : PostgresCluster.SHARD_IDS) {
			databases.addAll(properties("shard-tenancy.shards." + shard, cluster.shard(shard)));
		}
		a = WalletInstance.start("l2-pg-a", databases);
		b = WalletInstance.start("l2-pg-b", databases);
	}

	@AfterAll
	static void stop() {
		if (b != null) {
			b.close();
		}
		if (a != null) {
			a.close();
		}
	}

	private static List<String> properties(String prefix, PostgresServer server) {
		return List.of(prefix + ".url=" + server.jdbcUrl(), prefix + ".username=" + server.user(),
				prefix + ".password=" + server.password());
	}

	@Override
	WalletInstance a() {
		return a;
	}

	@Override
	WalletInstance b() {
		return b;
	}

	@Override
	String newTenant(String prefix) {
		return PostgresCluster.tenant(prefix);
	}

	@Override
	List<String> databaseProperties() {
		return databases;
	}

}
