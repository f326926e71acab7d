package io.github.shardtenancy.boot;

import io.github.shardtenancy.DualRead;
import io.github.shardtenancy.DualReadSettings;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.ShardTopology;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.ShardTenancyConfigurationException;
import io.github.shardtenancy.TenantAdmin;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/** Pool settings reaching the shard pools, and bad numeric settings failing the start with a clear analysis. */
@DisplayName("Shard tenancy settings")
class ShardTenancySettingsTests {

	/** @return the URL of a new in-memory H2 database named after {@code name} (also used by the pool tests) */
	static String h2(String name) {
		return "jdbc:h2:mem:" + name + "-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000";
	}

	private static ApplicationContextRunner runner(String directoryUrl, String shard1Url) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(ShardTenancyAutoConfiguration.class))
			.withPropertyValues("shard-tenancy.directory.url=" + directoryUrl, "shard-tenancy.shards.shard-1.url=" + shard1Url,
					"shard-tenancy.sync.interval=1h");
	}

	private static long connectionTimeoutOf(ShardTopology topology, String shardId) {
		return ((HikariDataSource) topology.dataSource(shardId)).getConnectionTimeout();
	}

	@Nested
	@DisplayName("the dual read")
	class DualReadSettingsTests {

		@Test
		@DisplayName("is off by default, with no registered query")
		void offByDefault() {
			runner(h2("directory"), h2("shard-1")).run(context -> {
				DualRead dualRead = context.getBean(ShardTenancy.class).dualRead();
				assertThat(dualRead.settings()).isEqualTo(DualReadSettings.defaults());
				assertThat(dualRead.settings().enabled()).isFalse();
				assertThat(dualRead.queries()).isEmpty();
			});
		}

		@Test
		@DisplayName("shard-tenancy.dual-read.* reach the tenancy's dual read, and its queries are registered")
		void propertiesReachTheDualRead() {
			runner(h2("directory"), h2("shard-1"))
				.withPropertyValues("shard-tenancy.dual-read.enabled=true", "shard-tenancy.dual-read.sample-rate=0.25",
						"shard-tenancy.dual-read.timeout=2s", "shard-tenancy.dual-read.rechecks=1",
						"shard-tenancy.dual-read.recheck-delay=50ms",
						"shard-tenancy.dual-read.queries.orders=SELECT id, total FROM orders WHERE tenant_id = ?")
				.run(context -> {
					DualRead dualRead = context.getBean(ShardTenancy.class).dualRead();
					assertThat(dualRead.settings()).isEqualTo(new DualReadSettings(true, 0.25, Duration.ofSeconds(2), 1,
							Duration.ofMillis(50)));
					assertThat(dualRead.queries())
						.isEqualTo(Map.of("orders", "SELECT id, total FROM orders WHERE tenant_id = ?"));
				});
		}

	}

	@Nested
	@DisplayName("the shard pools' connection timeout")
	class ConnectionTimeout {

		@Test
		@DisplayName("is 5 s by default rather than HikariCP's 30 s")
		void fiveSecondsByDefault() {
			runner(h2("directory"), h2("shard-1")).run(context -> {
				assertThat(context).hasNotFailed();
				assertThat(connectionTimeoutOf(context.getBean(ShardTopology.class), "shard-1")).isEqualTo(5_000);
			});
		}

		@Test
		@DisplayName("shard-tenancy.pool.connection-timeout reaches every configured shard pool, unless the shard sets its own")
		void globalAndPerShard() {
			runner(h2("directory"), h2("shard-1"))
				.withPropertyValues("shard-tenancy.shards.shard-2.url=" + h2("shard-2"),
						"shard-tenancy.pool.connection-timeout=1500ms", "shard-tenancy.shards.shard-2.connection-timeout=800ms")
				.run(context -> {
					ShardTopology topology = context.getBean(ShardTopology.class);
					assertThat(connectionTimeoutOf(topology, "shard-1")).isEqualTo(1_500);
					assertThat(connectionTimeoutOf(topology, "shard-2")).isEqualTo(800);
				});
		}

		@Test
		@DisplayName("reaches the pool of a shard another instance registered, built when this instance meets it")
		void shardsMetAtRuntime() {
			String directory = h2("directory");
			String shard1 = h2("shard-1");
			runner(directory, shard1).run(registering -> {
				HikariConfig config = new HikariConfig();
				config.setJdbcUrl(h2("shard-3"));
				registering.getBean(TenantAdmin.class).registerShard("shard-3", null, config);
				runner(directory, shard1).withPropertyValues("shard-tenancy.pool.connection-timeout=2s").run(other -> {
					ShardTopology topology = other.getBean(ShardTopology.class);
					assertThat(topology.contains("shard-3")).isFalse();
					other.getBean(TenantAdmin.class).syncShards();
					assertThat(topology.contains("shard-3")).isTrue();
					assertThat(connectionTimeoutOf(topology, "shard-3")).isEqualTo(2_000);
				});
			});
		}

	}

	@Test
	@DisplayName("two shard ids configured with the same database fail the start, naming the second shard's URL property")
	void twoShardsOnOneDatabaseFailTheStart() {
		String shared = h2("shared");
		runner(h2("directory"), shared).withPropertyValues("shard-tenancy.shards.shard-2.url=" + shared).run(context -> {
			assertThat(context).hasFailed();
			FailureAnalysis analysis = new ShardTenancyFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis).isNotNull();
			assertThat(analysis.getDescription()).contains("shard-tenancy.shards.shard-2.url")
				.contains("already belongs to shard 'shard-1'");
		});
	}

	@Nested
	@DisplayName("a bad numeric setting fails the start with an analysis naming the property and the value")
	class BadValues {

		@ParameterizedTest(name = "{0}={1}")
		@CsvSource({ "shard-tenancy.retry.max-attempts, 0", "shard-tenancy.retry.initial-delay, -5ms",
				"shard-tenancy.move.batch-size, 0", "shard-tenancy.move.online-clean-delay, -1s",
				"shard-tenancy.sync.interval, 0s", "shard-tenancy.pool.connection-timeout, 100ms",
				"shard-tenancy.shards.shard-1.connection-timeout, 10ms", "shard-tenancy.cache.maximum-entries, 0",
				"shard-tenancy.lifecycle.registry-sync-interval, 0s", "shard-tenancy.shards.shard-1.maximum-pool-size, 0",
				"shard-tenancy.retry.multiplier, 0.5", "shard-tenancy.timeline.window, 5s",
				"shard-tenancy.timeline.window, 2h", "shard-tenancy.dual-read.sample-rate, 1.5",
				"shard-tenancy.dual-read.timeout, 0s", "shard-tenancy.dual-read.rechecks, -1",
				"shard-tenancy.dual-read.recheck-delay, -1ms" })
		void failsWithAnalysis(String property, String value) {
			runner(h2("directory"), h2("shard-1")).withPropertyValues(property + "=" + value).run(context -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).hasRootCauseInstanceOf(ShardTenancyConfigurationException.class);
				FailureAnalysis analysis = new ShardTenancyFailureAnalyzer().analyze(context.getStartupFailure());
				assertThat(analysis).isNotNull();
				assertThat(analysis.getDescription()).contains(property);
				assertThat(analysis.getAction()).contains(property);
				assertThat(((ShardTenancyConfigurationException) rootCause(context.getStartupFailure())).setting())
					.isEqualTo(property);
			});
		}

		private static Throwable rootCause(Throwable failure) {
			Throwable cause = failure;
			while (cause.getCause() != null) {
				cause = cause.getCause();
			}
			return cause;
		}

	}

}
