package io.github.shardtenancy.boot;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.boot.taskapp.TaskApplication;
import io.github.shardtenancy.testing.pg.PostgresCluster;
import io.github.shardtenancy.testing.pg.PostgresServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@link TransactionalTenantTasksContract} on embedded PostgreSQL servers (the test fixtures' shared cluster: a
 * directory and three shards), with the fence in PL/pgSQL, row-level security and SQLSTATE 40001 rejections. The
 * rows are read with pools of the cluster's superuser, which sees every tenant's rows.
 */
@DisplayName("PostgreSQL: TransactionalTenantTasks runs the application's own code per tenant")
class PostgresTransactionalTenantTasksTests extends TransactionalTenantTasksContract {

	private static PostgresCluster cluster;

	private static ConfigurableApplicationContext app;

	private static final Map<String, HikariDataSource> raw = new LinkedHashMap<>();

	@BeforeAll
	static void start() {
		cluster = PostgresCluster.shared();
		List<String> properties = new ArrayList<>(List.of("shard-tenancy.web.access.policy=none",
				"shard-tenancy.liquibase.shard-changelogs=" + PostgresCluster.NOTES_CHANGELOG,
				"shard-tenancy.sync.interval=1h", "shard-tenancy.sync.listen=false",
				"shard-tenancy.retry.max-delay=20ms", "shard-tenancy.actor=pg-foreach-tests",
				"spring.liquibase.enabled=false", "spring.jmx.enabled=false"));
		properties.addAll(server("shard-tenancy.directory", cluster.directory()));
		for (String shardId : PostgresCluster.SHARD_IDS) {
			properties.addAll(server("shard-tenancy.shards." + shardId, cluster.shard(shardId)));
			raw.put(shardId, cluster.pool(cluster.shard(shardId), 2, "foreach-raw-" + shardId));
		}
		app = new SpringApplicationBuilder(TaskApplication.class).web(WebApplicationType.NONE)
			.properties(properties.toArray(String[]::new))
			.run();
	}

	private static List<String> server(String prefix, PostgresServer server) {
		return List.of(prefix + ".url=" + server.jdbcUrl(), prefix + ".username=" + server.user(),
				prefix + ".password=" + server.password());
	}

	@AfterAll
	static void stop() {
		if (app != null) {
			app.close();
		}
		raw.values().forEach(HikariDataSource::close);
		raw.clear();
	}

	@Override
	protected ConfigurableApplicationContext app() {
		return app;
	}

	@Override
	protected DataSource raw(String shardId) {
		return raw.get(shardId);
	}

	@Override
	protected String tenant(String prefix) {
		return PostgresCluster.tenant("foreach-" + prefix);
	}

}
