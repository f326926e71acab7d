package io.github.shardtenancy.boot;

import java.net.ServerSocket;
import java.time.Duration;
import java.util.UUID;

import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.ShardTenancyConfigurationException;
import io.github.shardtenancy.ShardTopology;
import io.github.shardtenancy.ShardUnavailableException;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.boot.actuate.ShardDatabasesHealthContributor;
import io.github.shardtenancy.boot.rerunapp.Entry;
import io.github.shardtenancy.boot.rerunapp.EntryRepository;
import io.github.shardtenancy.boot.rerunapp.RerunApplication;
import org.h2.tools.Server;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * {@code shard-tenancy.unreachable-shard-policy} in a Spring Boot application whose shard-2 is an H2 TCP server that
 * is not running at start-up: by default the start fails, and the failure analyzer names the shard's URL property and
 * the policy; with {@code start-without} the application starts, serves shard-1's tenant, refuses shard-2's with
 * {@link ShardUnavailableException} through a repository and {@code JdbcTemplate}, and once the server runs migrates
 * shard-2 with the application's changelog and serves its tenant, without a restart.
 */
@DisplayName("shard-tenancy.unreachable-shard-policy in a Spring Boot application")
class UnreachableShardPolicyTests {

	private final String id = UUID.randomUUID().toString().substring(0, 8);

	private final int port = freePort();

	private ConfigurableApplicationContext start(String... more) {
		return new SpringApplicationBuilder(RerunApplication.class)
			.properties("shard-tenancy.directory.url=jdbc:h2:mem:us-directory-" + this.id + ";DB_CLOSE_DELAY=-1",
					"shard-tenancy.shards.shard-1.url=jdbc:h2:mem:us-shard-1-" + this.id + ";DB_CLOSE_DELAY=-1",
					"shard-tenancy.shards.shard-2.url=jdbc:h2:tcp://localhost:" + this.port + "/mem:us-shard-2-"
							+ this.id + ";DB_CLOSE_DELAY=-1",
					"shard-tenancy.shards.shard-2.connection-timeout=2s",
					"shard-tenancy.liquibase.shard-changelogs=db/rerun-shard.xml", "shard-tenancy.entities.check=off",
					"shard-tenancy.sync.interval=1h", "spring.main.web-application-type=none")
			.properties(more)
			.run();
	}

	@Test
	@DisplayName("default: the start fails naming shard-2's URL property, and the analyzer offers the policy")
	void failsByDefault() {
		Throwable failure = catchThrowable(() -> start().close());
		Throwable cause = failure;
		while (cause != null && !(cause instanceof ShardTenancyConfigurationException)) {
			cause = cause.getCause();
		}
		assertThat(cause).as("cause of %s", failure).isInstanceOf(ShardTenancyConfigurationException.class);
		assertThat(((ShardTenancyConfigurationException) cause).setting())
			.isEqualTo("shard-tenancy.shards.shard-2.url");
		assertThat(cause.getMessage()).contains("Shard 'shard-2' cannot be reached at start-up",
				"shard-tenancy.unreachable-shard-policy=start-without");
		FailureAnalysis analysis = new ShardTenancyFailureAnalyzer().analyze(failure);
		assertThat(analysis).isNotNull();
		assertThat(analysis.getDescription()).contains("shard-tenancy.shards.shard-2.url");
		assertThat(analysis.getAction()).contains("shard-tenancy.unreachable-shard-policy=start-without");
	}

	@Test
	@DisplayName("start-without: starts; shard-2's tenant is refused until shard-2 answers, then migrated and served")
	void startsWithoutAndAddsItWhenItAnswers() throws Exception {
		Server server = Server.createTcpServer("-tcpPort", String.valueOf(this.port), "-ifNotExists").start();
		try (ConfigurableApplicationContext earlier = start()) {
			TenantAdmin admin = earlier.getBean(TenantAdmin.class);
			admin.create("acme", "shard-1");
			admin.create("globex", "shard-2");
		}
		finally {
			server.stop();
		}
		try (ConfigurableApplicationContext context = start("shard-tenancy.unreachable-shard-policy=start-without",
				"shard-tenancy.unreachable-shard-retry-interval=200ms")) {
			EntryRepository entries = context.getBean(EntryRepository.class);
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			ShardTopology topology = context.getBean(ShardTopology.class);
			assertThat(topology.shardIds()).containsExactly("shard-1");
			assertThat(topology.pendingShardIds()).containsExactly("shard-2");
			ShardDatabasesHealthContributor db = new ShardDatabasesHealthContributor(
					context.getBean(ShardTenancy.class).directoryDataSource(), topology);
			assertThat(health(db, "shard-2").getStatus()).isEqualTo(Status.DOWN);
			assertThat(health(db, "shard-1").getStatus()).isEqualTo(Status.UP);
			TenantContext.runAs("acme", () -> entries.save(new Entry("served")));
			assertUnavailable(catchThrowable(() -> TenantContext.runAs("globex", () -> entries.save(new Entry("no")))));
			assertUnavailable(catchThrowable(() -> TenantContext.callAs("globex",
					() -> jdbc.queryForObject("SELECT COUNT(*) FROM rerun_entry", Long.class))));

			server = Server.createTcpServer("-tcpPort", String.valueOf(this.port), "-ifNotExists").start();
			try {
				await().atMost(Duration.ofSeconds(30)).until(() -> topology.contains("shard-2"));
				assertThat(topology.pendingShardIds()).isEmpty();
				assertThat(health(db, "shard-2").getStatus()).isEqualTo(Status.UP);
				TenantContext.runAs("globex", () -> entries.save(new Entry("served later")));
				assertThat(TenantContext.callAs("globex", () -> entries.findAll())).extracting(Entry::getTitle)
					.containsExactly("served later");
				assertThat(new JdbcTemplate(topology.dataSource("shard-2"))
					.queryForObject("SELECT COUNT(*) FROM rerun_entry WHERE tenant_id = 'globex'", Long.class))
					.isEqualTo(1);
			}
			finally {
				server.stop();
			}
		}
	}

	private static Health health(ShardDatabasesHealthContributor db, String shardId) {
		return ((HealthIndicator) db.getContributor(shardId)).health();
	}

	private static void assertUnavailable(Throwable thrown) {
		assertThat(thrown).as("thrown").isNotNull();
		Throwable cause = thrown;
		while (cause != null && !(cause instanceof ShardUnavailableException)) {
			cause = cause.getCause();
		}
		assertThat(cause).as("cause of %s", thrown).isInstanceOf(ShardUnavailableException.class);
		assertThat(cause.getMessage()).contains("shard-2", "could not be reached at start-up");
	}

	private static int freePort() {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
		catch (java.io.IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
