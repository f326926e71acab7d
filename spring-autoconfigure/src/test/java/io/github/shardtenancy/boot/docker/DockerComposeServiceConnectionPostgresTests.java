package io.github.shardtenancy.boot.docker;

import java.net.URI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.boot.ShardConnectionDetails;
import io.github.shardtenancy.boot.ShardTenancyAutoConfiguration;
import io.github.shardtenancy.boot.ShardTenancyConnectionDetails;
import io.github.shardtenancy.boot.ShardTenancyDirectoryConnectionDetails;
import io.github.shardtenancy.postgresql.DirectoryWatcher;
import io.github.shardtenancy.testing.pg.PostgresCluster;
import io.github.shardtenancy.testing.pg.PostgresServer;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.service.connection.ConnectionDetails;
import org.springframework.boot.autoconfigure.service.connection.ConnectionDetailsFactories;
import org.springframework.boot.docker.compose.core.ConnectionPorts;
import org.springframework.boot.docker.compose.core.ImageReference;
import org.springframework.boot.docker.compose.core.RunningService;
import org.springframework.boot.docker.compose.service.connection.TestDockerComposeConnectionSources;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Docker Compose service connections end to end on real PostgreSQL servers (embedded without Docker): each server
 * described as the running {@code postgres} service Boot's Docker Compose support would report, the details Boot's
 * factories make of them registered as beans (as Boot's Docker Compose support does), and the tenancy built on them
 * while {@code shard-tenancy.*} names no reachable database (the directory's an H2 one: the watcher is switched on by
 * the directory service).
 */
@DisplayName("Docker Compose service connections on PostgreSQL")
class DockerComposeServiceConnectionPostgresTests {

	private final PostgresCluster cluster = PostgresCluster.shared();

	@Test
	@DisplayName("the tenancy, its pools and the LISTEN/NOTIFY watcher connect to the services, and a tenant's row lands "
			+ "on its shard")
	void tenancyRunsOnTheServices() {
		ApplicationContextRunner runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(ShardTenancyAutoConfiguration.class))
			.withPropertyValues("shard-tenancy.directory.url=jdbc:h2:file:/nonexistent-shard-tenancy/db;IFEXISTS=TRUE",
					"shard-tenancy.shards.shard-1.url=jdbc:postgresql://compose.invalid:1/shard-1",
					"shard-tenancy.shards.shard-1.maximum-pool-size=3",
					"shard-tenancy.liquibase.shard-changelogs=" + PostgresCluster.NOTES_CHANGELOG,
					"shard-tenancy.tenant-tables=pg_note:tenant_id", "shard-tenancy.sync.interval=1h",
					"shard-tenancy.actor=compose-test");
		runner = register(runner, ShardTenancyDirectoryConnectionDetails.class, "directory",
				service(this.cluster.directory(), "shard-tenancy-directory", null));
		for (String shardId : PostgresCluster.SHARD_IDS) {
			runner = register(runner, ShardConnectionDetails.class, shardId,
					service(this.cluster.shard(shardId), "shard-tenancy-shard", shardId));
		}
		runner.run((context) -> {
			assertThat(context).hasNotFailed();
			ShardTenancy tenancy = context.getBean(ShardTenancy.class);
			assertThat(context.getBean(ShardTenancyConnectionDetails.class).getDirectory().jdbcUrl())
				.isEqualTo(this.cluster.directory().jdbcUrl());
			assertThat(tenancy.topology().shardIds()).containsExactlyInAnyOrderElementsOf(PostgresCluster.SHARD_IDS);
			HikariDataSource shard1 = (HikariDataSource) tenancy.topology().dataSource("shard-1");
			assertThat(shard1.getJdbcUrl()).isEqualTo(this.cluster.shard("shard-1").jdbcUrl());
			assertThat(shard1.getMaximumPoolSize()).isEqualTo(3);
			assertThat(context.getBean(DirectoryWatcher.class).awaitListening(Duration.ofSeconds(30))).isTrue();

			String tenant = PostgresCluster.tenant("compose");
			context.getBean(TenantAdmin.class).create(tenant, "shard-2");
			UUID id = UUID.randomUUID();
			TenantContext.runAs(tenant, () -> new JdbcTemplate(tenancy.dataSource())
				.update("INSERT INTO pg_note (id, tenant_id, text) VALUES (?, ?, 'hello')", id, tenant));

			assertThat(tenantOf(this.cluster.shard("shard-2"), id)).isEqualTo(tenant);
			assertThat(tenantOf(this.cluster.shard("shard-1"), id)).isNull();
		});
	}

	/** Registers what Boot's registered factories make of a running service, as Boot's Docker Compose support does. */
	private static <D extends ConnectionDetails> ApplicationContextRunner register(ApplicationContextRunner runner,
			Class<D> type, String name, RunningService service) {
		Map<Class<?>, ConnectionDetails> details = new ConnectionDetailsFactories(null)
			.getConnectionDetails(TestDockerComposeConnectionSources.of(service), false);
		D bean = type.cast(details.get(type));
		assertThat(bean).as(name).isNotNull();
		return runner.withBean(name + "ConnectionDetails", type, () -> bean);
	}

	/** The {@code postgres} service a server would be, its port 5432 published as the server's port. */
	private static RunningService service(PostgresServer server, String connectionName, String shardId) {
		URI url = URI.create(server.jdbcUrl().substring("jdbc:".length()));
		Map<String, String> labels = new HashMap<>(Map.of("org.springframework.boot.service-connection", connectionName));
		if (shardId != null) {
			labels.put(ShardConnectionDetails.SHARD_ID_LABEL, shardId);
		}
		Map<String, String> env = Map.of("POSTGRES_USER", server.user(), "POSTGRES_PASSWORD", server.password(),
				"POSTGRES_DB", url.getPath().substring(1));
		return new RunningService() {

			@Override
			public String name() {
				return server.name();
			}

			@Override
			public ImageReference image() {
				return ImageReference.of("postgres:17-alpine");
			}

			@Override
			public String host() {
				return url.getHost();
			}

			@Override
			public ConnectionPorts ports() {
				return new ConnectionPorts() {

					@Override
					public int get(int containerPort) {
						return url.getPort();
					}

					@Override
					public List<Integer> getAll() {
						return List.of(url.getPort());
					}

					@Override
					public List<Integer> getAll(String protocol) {
						return List.of(url.getPort());
					}

				};
			}

			@Override
			public Map<String, String> env() {
				return env;
			}

			@Override
			public Map<String, String> labels() {
				return labels;
			}

		};
	}

	private static String tenantOf(PostgresServer server, UUID id) throws Exception {
		try (Connection c = DriverManager.getConnection(server.jdbcUrl(), server.user(), server.password());
				PreparedStatement ps = c.prepareStatement("SELECT tenant_id FROM pg_note WHERE id = ?")) {
			ps.setObject(1, id);
			try (ResultSet rs = ps.executeQuery()) {
				return rs.next() ? rs.getString(1) : null;
			}
		}
	}

}
