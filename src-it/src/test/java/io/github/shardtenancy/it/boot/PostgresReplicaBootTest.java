package io.github.shardtenancy.it.boot;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

import io.github.shardtenancy.ReplicaStatus;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.it.boot.replica.ReplicaPgApplication;
import io.github.shardtenancy.micrometer.ReplicaLagMetrics;
import io.github.shardtenancy.testing.pg.ScratchPostgres;
import io.github.shardtenancy.testing.pg.StreamingReplica;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Read replicas through Spring Boot: {@code shard-tenancy.shards.shard-1.replicas[0].*} and
 * {@code shard-tenancy.replicas.*} on a real PostgreSQL streaming replica ({@link StreamingReplica}); a
 * {@code @Transactional(readOnly = true)} method runs on the replica, a read-write one on the primary; the
 * replica's lag is listed and measured by the {@code shardtenancy.replica.lag} gauge.
 */
@DisplayName("PostgreSQL + Boot: @Transactional(readOnly = true) served by the shard's streaming replica")
class PostgresReplicaBootTest {

	static ScratchPostgres directory;

	static StreamingReplica pair;

	static ConfigurableApplicationContext app;

	@BeforeAll
	static void start() throws SQLException {
		directory = ScratchPostgres.start("boot-replica-directory");
		directory.createDatabase("directory", 1).close();
		pair = StreamingReplica.start("boot-replica");
		try (Connection c = DriverManager.getConnection(pair.primary().jdbcUrl(), "postgres", "postgres");
				Statement s = c.createStatement()) {
			s.execute("CREATE DATABASE shard_1");
		}
		app = new SpringApplicationBuilder(ReplicaPgApplication.class).web(WebApplicationType.NONE)
			.properties("shard-tenancy.directory.url=" + url(directory.server().jdbcUrl(), "directory"),
					"shard-tenancy.directory.username=postgres", "shard-tenancy.directory.password=postgres",
					"shard-tenancy.shards.shard-1.url=" + url(pair.primary().jdbcUrl(), "shard_1"),
					"shard-tenancy.shards.shard-1.username=postgres", "shard-tenancy.shards.shard-1.password=postgres",
					"shard-tenancy.shards.shard-1.replicas[0].name=standby",
					"shard-tenancy.shards.shard-1.replicas[0].url=" + url(pair.replica().jdbcUrl(), "shard_1"),
					"shard-tenancy.replicas.enabled=true", "shard-tenancy.replicas.max-lag=2s",
					"shard-tenancy.replicas.sample-interval=100ms", "shard-tenancy.sync.listen=false",
					"shard-tenancy.actor=boot-replica", "spring.liquibase.enabled=false", "spring.jmx.enabled=false")
			.run();
	}

	@AfterAll
	static void stop() {
		if (app != null) {
			app.close();
		}
		if (pair != null) {
			pair.close();
		}
		if (directory != null) {
			directory.close();
		}
	}

	static String url(String postgresUrl, String database) {
		return postgresUrl.replace("/postgres", "/" + database);
	}

	@Test
	@DisplayName("read-only on the replica once it has caught up, read-write on the primary; the replica is listed with "
			+ "its lag")
	void readOnlyOnTheReplica() throws Exception {
		String tenant = "boot-replica-" + UUID.randomUUID().toString().substring(0, 8);
		app.getBean(TenantAdmin.class).create(tenant, "shard-1");
		ReplicaPgApplication.WhereService where = app.getBean(ReplicaPgApplication.WhereService.class);

		await().atMost(Duration.ofSeconds(30)).until(() -> TenantContext.callAs(tenant, where::readOnly));
		assertThat(TenantContext.callAs(tenant, () -> where.readWrite())).isFalse();
		List<ReplicaStatus> replicas = app.getBean(ShardTenancy.class).topology().replicas();
		assertThat(replicas).singleElement().satisfies(replica -> {
			assertThat(replica.shardId()).isEqualTo("shard-1");
			assertThat(replica.name()).isEqualTo("standby");
			assertThat(replica.problem()).isNull();
			assertThat(replica.lag()).isLessThanOrEqualTo(Duration.ofSeconds(2));
		});
		// The auto-configured binder's gauge, tagged with shard and replica, in seconds.
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		app.getBean(ReplicaLagMetrics.class).bindTo(registry);
		double lag = registry.get("shardtenancy.replica.lag").tag("shard", "shard-1").tag("replica", "standby").gauge()
			.value();
		assertThat(lag).isBetween(0.0, 2.0);
	}

}
