package io.github.shardtenancy.it.directory;

import java.time.Duration;

import io.github.shardtenancy.it.support.AppInstance;
import io.github.shardtenancy.micrometer.DirectoryWatcherMetrics;
import io.github.shardtenancy.micrometer.ShardTenancyMetrics;
import io.github.shardtenancy.postgresql.WatcherSettings;
import io.github.shardtenancy.RouterSettings;
import io.github.shardtenancy.testing.pg.PostgresCluster;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

@DisplayName("PostgreSQL watcher metrics: listener up, resyncs and notifications as Micrometer meters")
class PostgresWatcherMetricsTest {

	static PostgresCluster cluster;

	@BeforeAll
	static void servers() {
		cluster = PostgresCluster.shared();
	}

	@Test
	@DisplayName("a listening watcher shows up=1 and one resync; a directory change counts one notification and moves the version gauge; up=0 once closed")
	void watcherMetersFollowTheWatcher() throws Exception {
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		RouterSettings settings = RouterSettings.defaults().withSyncInterval(Duration.ofMinutes(10));
		WatcherSettings watching = WatcherSettings.defaults().withPollInterval(Duration.ofMinutes(10));
		try (AppInstance writer = AppInstance.plain(cluster, "metrics-writer", RouterSettings.defaults(), 1)) {
			AppInstance watched = AppInstance.watched(cluster, "metrics-watched", settings, 1, watching, null);
			try {
				new DirectoryWatcherMetrics(watched.watcher).bindTo(registry);
				new ShardTenancyMetrics(watched.router).bindTo(registry);
				assertThat(watched.watcher.awaitListening(Duration.ofSeconds(10))).isTrue();
				assertThat(registry.get("shardtenancy.listener.up").gauge().value()).isEqualTo(1);
				// A first connection of an already loaded router refreshes rather than resyncs: no resync yet.
				assertThat(registry.get("shardtenancy.listener.resyncs").functionCounter().count()).isZero();
				double before = registry.get("shardtenancy.listener.notifications").functionCounter().count();

				long version = writer.directory.create(PostgresCluster.tenant("metrics"), "shard-1", "metrics-writer")
					.version();
				await("the router holds the new version").atMost(Duration.ofSeconds(10))
					.until(() -> watched.router.version() >= version);

				assertThat(registry.get("shardtenancy.listener.notifications").functionCounter().count() - before)
					.isEqualTo(1);
				assertThat(registry.get("shardtenancy.router.directory.version").gauge().value())
					.isGreaterThanOrEqualTo(version);
			}
			finally {
				watched.close();
			}
			assertThat(registry.get("shardtenancy.listener.up").gauge().value()).isZero();
		}
	}

}
