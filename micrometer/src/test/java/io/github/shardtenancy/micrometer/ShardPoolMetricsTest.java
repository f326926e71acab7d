package io.github.shardtenancy.micrometer;

import java.sql.Connection;
import java.util.UUID;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.metrics.micrometer.MicrometerMetricsTrackerFactory;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link ShardPoolMetrics} on real HikariCP pools over H2 and a real (simple) registry: pools that joined before the
 * registry was bound and after, the {@code shard} tag next to HikariCP's {@code pool} tag, meters removed when the
 * pool closes, and pools with a tracker of their own left alone.
 */
@DisplayName("ShardPoolMetrics: HikariCP meters per shard pool")
class ShardPoolMetricsTest {

	private static HikariDataSource pool(String poolName) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl("jdbc:h2:mem:pool-metrics-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
		config.setPoolName(poolName);
		config.setMaximumPoolSize(2);
		return new HikariDataSource(config);
	}

	private static int meters(MeterRegistry registry, String shardId) {
		return registry.find("hikaricp.connections").tag("shard", shardId).meters().size();
	}

	@Test
	@DisplayName("pools added before and after bindTo get meters tagged shard and pool; closing a pool removes them")
	void beforeAndAfterBinding() throws Exception {
		MeterRegistry registry = new SimpleMeterRegistry();
		ShardPoolMetrics metrics = new ShardPoolMetrics();
		try (HikariDataSource early = pool("shard-early"); HikariDataSource late = pool("shard-late")) {
			metrics.poolAdded("early", early);
			assertThat(registry.getMeters()).isEmpty();
			metrics.bindTo(registry);
			assertThat(registry.find("hikaricp.connections.max").tag("shard", "early").tag("pool", "shard-early")
				.gauge().value()).isEqualTo(2);

			metrics.poolAdded("late", late);
			try (Connection connection = late.getConnection()) {
				assertThat(connection.isValid(1)).isTrue();
			}
			assertThat(registry.find("hikaricp.connections.acquire").tag("shard", "late").tag("pool", "shard-late")
				.timer().count()).isEqualTo(1);

			late.close();
			assertThat(meters(registry, "late")).isZero();
			assertThat(registry.getMeters()).noneMatch((meter) -> "late".equals(meter.getId().getTag("shard")));
			assertThat(meters(registry, "early")).isOne();
		}
	}

	@Test
	@DisplayName("a pool removed before the registry is bound, and a pool with its own tracker, are left alone")
	void leftAlone() {
		MeterRegistry registry = new SimpleMeterRegistry();
		MeterRegistry own = new SimpleMeterRegistry();
		ShardPoolMetrics metrics = new ShardPoolMetrics();
		try (HikariDataSource removed = pool("shard-removed"); HikariDataSource tracked = pool("shard-tracked")) {
			tracked.setMetricsTrackerFactory(new MicrometerMetricsTrackerFactory(own));
			metrics.poolAdded("removed", removed);
			metrics.poolRemoved("removed", removed);
			metrics.bindTo(registry);
			metrics.poolAdded("tracked", tracked);
			assertThat(registry.getMeters()).isEmpty();
			assertThat(own.find("hikaricp.connections").tag("pool", "shard-tracked").gauge()).isNotNull();
		}
	}

}
