package io.github.shardtenancy.it.support;

import java.util.ArrayList;
import java.util.List;

import io.github.shardtenancy.testing.pg.PostgresCluster;
import io.github.shardtenancy.testing.pg.PostgresServer;

/** Spring Boot properties of the integration tests' applications on the PostgreSQL cluster. */
public final class BootProperties {

	private BootProperties() {
	}

	/**
	 * @param cluster the cluster
	 * @return {@code key=value} properties pointing shard-tenancy at the cluster: the directory and every shard of
	 * {@link PostgresCluster#SHARD_IDS} (URL, user, password)
	 */
	public static List<String> connectingTo(PostgresCluster cluster) {
		List<String> properties = new ArrayList<>(server("shard-tenancy.directory", cluster.directory()));
		for (String shard : PostgresCluster.SHARD_IDS) {
			properties.addAll(server("shard-tenancy.shards." + shard, cluster.shard(shard)));
		}
		return properties;
	}

	private static List<String> server(String prefix, PostgresServer server) {
		return List.of(prefix + ".url=" + server.jdbcUrl(), prefix + ".username=" + server.user(),
				prefix + ".password=" + server.password());
	}

}
