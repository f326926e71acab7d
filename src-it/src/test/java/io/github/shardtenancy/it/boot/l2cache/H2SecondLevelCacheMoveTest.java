package io.github.shardtenancy.it.boot.l2cache;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;

/** {@link SecondLevelCacheMoveScenarios} on in-memory H2 databases shared by the instances of this JVM. */
@DisplayName("Second-level and query caches stay coherent across tenant moves (H2, two Spring Boot instances)")
class H2SecondLevelCacheMoveTest extends SecondLevelCacheMoveScenarios {

	private static List<String> databases;

	private static WalletInstance a;

	private static WalletInstance b;

	@BeforeAll
	static void start() {
		String cluster = "l2-cache-" + UUID.randomUUID().toString().substring(0, 8);
		databases = new ArrayList<>(List.of("shard-tenancy.directory.url=" + url(cluster, "directory")));
		for (String shard : List.of("shard-1", "shard-2")) {
			databases.add("shard-tenancy.shards." + shard + ".url=" + url(cluster, shard));
		}
		a = WalletInstance.start("l2-instance-a", databases);
		b = WalletInstance.start("l2-instance-b", databases);
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

	private static String url(String cluster, String database) {
		return "jdbc:h2:mem:" + cluster + "-" + database + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000";
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
		return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
	}

	@Override
	List<String> databaseProperties() {
		return databases;
	}

}
