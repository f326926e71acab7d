package io.github.shardtenancy.micrometer;

import java.time.Duration;
import java.util.UUID;

import io.github.shardtenancy.InstanceSettings;
import io.github.shardtenancy.RouterSettings;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.internal.directory.Directory;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The version-skew gauges, on two real tenancies sharing an H2 directory: the second one's sync never polls, so after
 * a directory change it lags and the skew shows. Heartbeats are run by the test (the scheduled ones every hour).
 */
class InstanceSkewMetricsTest {

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	private static InstanceSettings settings(String id) {
		return InstanceSettings.defaults()
			.withInstanceId(id)
			.withHeartbeatInterval(Duration.ofHours(1))
			.withGoneAfter(Duration.ofHours(2))
			.withRemoveAfter(Duration.ofHours(2))
			.withMaxLag(Duration.ofMillis(1));
	}

	private double gauge(String name) {
		return this.registry.get(name).gauge().value();
	}

	@Test
	@DisplayName("live, lagging, gone, lowest applied version and skew follow the latest heartbeat's report")
	void gaugesFollowTheLatestHeartbeat() {
		JdbcDataSource directory = new JdbcDataSource();
		directory.setURL("jdbc:h2:mem:skew-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
		ShardTenancyMigrations.migrateDirectory(directory);
		JdbcDataSource shard = new JdbcDataSource();
		shard.setURL("jdbc:h2:mem:skew-shard-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
		ShardTenancyMigrations.migrateShard(shard, "shard-1", java.util.List.of());
		try (ShardTenancy first = ShardTenancy.builder().directory(directory).shard("shard-1", shard)
				.instances(settings("first")).build();
				ShardTenancy second = ShardTenancy.builder().directory(directory).shard("shard-1", shard)
					.router(RouterSettings.defaults().withSyncInterval(Duration.ofHours(1)))
					.instances(settings("second")).build()) {
			InstanceSkewMetrics metrics = new InstanceSkewMetrics(first.instances());
			metrics.bindTo(this.registry);
			assertThat(gauge("shardtenancy.instances.live")).as("no heartbeat yet").isNaN();

			first.start();
			second.start();
			second.routeFeed().refresh();
			second.instances().heartbeat();
			long version = first.routeFeed().refresh();
			first.instances().heartbeat();
			assertThat(gauge("shardtenancy.instances.live")).isEqualTo(2);
			assertThat(gauge("shardtenancy.instances.lagging")).isZero();
			assertThat(gauge("shardtenancy.instances.version.lowest")).isEqualTo(version);
			assertThat(gauge("shardtenancy.instances.version.skew")).isZero();

			long changed = new Directory(directory).create("acme", "shard-1", "test").version();
			first.routeFeed().refresh();
			second.instances().heartbeat(); // records that it is behind
			await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
				first.instances().heartbeat();
				assertThat(gauge("shardtenancy.instances.lagging")).isEqualTo(1);
			});
			assertThat(gauge("shardtenancy.instances.live")).isEqualTo(2);
			assertThat(gauge("shardtenancy.instances.version.lowest")).isEqualTo(version);
			assertThat(gauge("shardtenancy.instances.version.skew")).isEqualTo(changed - version);

			second.close();
			first.instances().heartbeat();
			assertThat(gauge("shardtenancy.instances.gone")).isEqualTo(1);
			assertThat(gauge("shardtenancy.instances.live")).isEqualTo(1);
			assertThat(gauge("shardtenancy.instances.lagging")).isZero();
			assertThat(gauge("shardtenancy.instances.version.skew")).isZero();
		}
	}

}
