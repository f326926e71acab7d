package io.github.shardtenancy.it.boot;

import java.util.ArrayList;
import java.util.List;

import io.github.shardtenancy.it.boot.orders.OrdersApplication;
import io.github.shardtenancy.it.support.BootProperties;
import io.github.shardtenancy.testing.pg.PostgresCluster;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/** The test application of the H2 integration tests ({@link OrdersApplication}) pointed at the PostgreSQL cluster. */
public final class PostgresOrdersApp {

	private PostgresOrdersApp() {
	}

	/**
	 * Starts the test application on the cluster. Its router never polls (sync interval 1 h), so it learns of other
	 * instances' changes only from NOTIFY pushes (unless switched off) and from fence rejections.
	 */
	public static ConfigurableApplicationContext start(PostgresCluster cluster, String actor, String... extra) {
		List<String> properties = new ArrayList<>(List.of(
				"shard-tenancy.liquibase.shard-changelogs=db/it-h2/orders.xml",
				"shard-tenancy.sync.interval=1h",
				"shard-tenancy.retry.max-delay=20ms",
				"shard-tenancy.move.clean-delay=0s", // the tests check the source is clean right after a move
				"shard-tenancy.actor=" + actor,
				"spring.liquibase.enabled=false",
				"spring.jmx.enabled=false"));
		properties.addAll(BootProperties.connectingTo(cluster));
		properties.addAll(List.of(extra));
		return new SpringApplicationBuilder(OrdersApplication.class).web(WebApplicationType.NONE)
			.properties(properties.toArray(String[]::new))
			.run();
	}

}
