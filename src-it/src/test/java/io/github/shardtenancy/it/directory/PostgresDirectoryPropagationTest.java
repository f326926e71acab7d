package io.github.shardtenancy.it.directory;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.DirectoryUnavailableException;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.RouterSettings;
import io.github.shardtenancy.TenantState;
import io.github.shardtenancy.internal.directory.Directory;
import io.github.shardtenancy.it.support.AppInstance;
import io.github.shardtenancy.postgresql.DirectoryNotification;
import io.github.shardtenancy.postgresql.DirectoryWatcher;
import io.github.shardtenancy.postgresql.WatcherSettings;
import io.github.shardtenancy.testing.pg.PostgresCluster;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

@DisplayName("PostgreSQL directory: changes are pushed to every router with LISTEN/NOTIFY; a cold start streams one snapshot")
class PostgresDirectoryPropagationTest {

	/** Generous bound for a propagation; the measured times are printed, not asserted. */
	static final Duration PROPAGATION_BOUND = Duration.ofSeconds(10);

	static PostgresCluster cluster;

	@BeforeAll
	static void servers() {
		cluster = PostgresCluster.shared();
	}

	@Test
	@DisplayName("threeIndependentRoutersSeeADirectoryChange: each with its own pools and listener, pushed, not polled")
	void threeIndependentRoutersSeeADirectoryChange() throws Exception {
		// Router sync and watcher poll are long: only a notification can bring the change in time.
		RouterSettings settings = RouterSettings.defaults().withSyncInterval(Duration.ofMinutes(10));
		WatcherSettings watching = WatcherSettings.defaults().withPollInterval(Duration.ofMinutes(10));
		List<AppInstance> routers = new ArrayList<>();
		try (AppInstance writer = AppInstance.plain(cluster, "prop-writer", RouterSettings.defaults(), 1)) {
			for (int i = 1; i <= 3; i++) {
				routers.add(AppInstance.watched(cluster, "prop-" + i, settings, 1, watching, null));
			}
			for (AppInstance r : routers) {
				assertThat(r.watcher.awaitListening(Duration.ofSeconds(10))).isTrue();
			}
			String tenant = PostgresCluster.tenant("prop");

			// Times are measured from the start of the directory write (so they include the write itself).
			long committed = System.nanoTime();
			DirectoryEntry created = writer.directory.create(tenant, "shard-1", "prop-writer");
			long createWrite = (System.nanoTime() - committed) / 1_000_000;
			Map<String, Long> createMillis = awaitEverywhere(routers, tenant, committed,
					e -> e.version() == created.version());

			committed = System.nanoTime();
			DirectoryEntry migrating = writer.directory.update(tenant, created.epoch(), "shard-1",
					TenantState.MIGRATING, "shard-2", "prop-writer");
			long updateWrite = (System.nanoTime() - committed) / 1_000_000;
			Map<String, Long> updateMillis = awaitEverywhere(routers, tenant, committed,
					e -> e.version() == migrating.version() && e.state() == TenantState.MIGRATING);

			System.out.println("[directory propagation] create of " + tenant + " (version " + created.version()
					+ ") seen after ms: " + createMillis + " (the write itself took " + createWrite + " ms)");
			System.out.println("[directory propagation] update to MIGRATING (version " + migrating.version()
					+ ") seen after ms: " + updateMillis + " (the write itself took " + updateWrite + " ms)");
			for (AppInstance r : routers) {
				assertThat(r.watcher.status().notifications()).as(r.name).isGreaterThanOrEqualTo(2);
				assertThat(r.watcher.status().polls()).as(r.name).isZero();
				// The payload's entry is applied first; the version held advances with the refresh that follows it.
				await(r.name + " holds the version of the update").atMost(Duration.ofSeconds(30))
					.until(() -> r.router.version() >= migrating.version());
			}
		}
		finally {
			routers.forEach(AppInstance::close);
		}
	}

	@Test
	@DisplayName("a change is applied from the notification's payload, even by a router whose directory pool is down")
	void changeIsAppliedFromThePayloadWithoutADirectoryRead() throws Exception {
		RouterSettings settings = RouterSettings.defaults().withSyncInterval(Duration.ofMinutes(10));
		WatcherSettings watching = WatcherSettings.defaults().withPollInterval(Duration.ofMinutes(10));
		try (AppInstance writer = AppInstance.plain(cluster, "payload-writer", RouterSettings.defaults(), 1);
				AppInstance reader = AppInstance.watched(cluster, "payload-reader", settings, 1, watching, null)) {
			assertThat(reader.watcher.awaitListening(Duration.ofSeconds(10))).isTrue();
			String tenant = PostgresCluster.tenant("payload");
			reader.directoryPool.close(); // the router can no longer read the directory; the listener still hears it

			// (The refresh that follows the apply fails, and the watcher then reconnects: one change is enough.)
			DirectoryEntry created = writer.directory.create(tenant, "shard-2", "payload-writer");

			awaitEverywhere(List.of(reader), tenant, System.nanoTime(), e -> e.version() == created.version());
			assertThat(reader.router.cached(tenant)).contains(created);
			assertThat(reader.router.stats().directoryReads()).isZero();
		}
	}

	@Test
	@DisplayName("the directory's notification carries the written entry, and a bare version when no entry has it")
	void notificationPayloadCarriesTheWrittenEntry() throws Exception {
		try (AppInstance writer = AppInstance.plain(cluster, "payload-notify", RouterSettings.defaults(), 1);
				Connection listener = java.sql.DriverManager.getConnection(cluster.directory().jdbcUrl(),
						cluster.directory().user(), cluster.directory().password())) {
			try (Statement st = listener.createStatement()) {
				st.execute("LISTEN " + DirectoryWatcher.CHANNEL);
			}
			String tenant = PostgresCluster.tenant("notify");
			DirectoryEntry created = writer.directory.create(tenant, "shard-1", "payload-notify");
			DirectoryEntry moving = writer.directory.update(tenant, created.epoch(), "shard-1", TenantState.MIGRATING,
					"shard-2", "payload-notify");
			long bare;
			try (Connection c = writer.directoryPool.getConnection(); Statement st = c.createStatement()) {
				st.executeUpdate("UPDATE shard_directory_version SET version = version + 1 WHERE id = 1");
				try (ResultSet rs = st.executeQuery("SELECT version FROM shard_directory_version")) {
					rs.next();
					bare = rs.getLong(1);
				}
			}

			// Other writers may share the directory: keep what this test wrote.
			List<DirectoryNotification> received = new ArrayList<>();
			long deadline = System.nanoTime() + PROPAGATION_BOUND.toNanos();
			boolean sawBare = false;
			while (!sawBare && System.nanoTime() < deadline) {
				PGNotification[] batch = listener.unwrap(PGConnection.class).getNotifications(100);
				for (PGNotification n : batch != null ? batch : new PGNotification[0]) {
					DirectoryNotification parsed = DirectoryNotification.parse(n.getParameter()).orElseThrow();
					boolean mine = parsed.entry() != null ? parsed.entry().tenantId().equals(tenant)
							: parsed.version() == bare;
					if (mine) {
						received.add(parsed);
					}
					sawBare |= parsed.version() >= bare;
				}
			}
			assertThat(received).containsExactly(new DirectoryNotification(created.version(), created),
					new DirectoryNotification(moving.version(), moving), new DirectoryNotification(bare, null));
		}
	}

	private static Map<String, Long> awaitEverywhere(List<AppInstance> routers, String tenant, long since,
			Predicate<DirectoryEntry> seen) {
		Map<String, Long> millis = new LinkedHashMap<>();
		// polled every millisecond in this thread: the first sighting of each router is measured, not only awaited
		await("every router sees the change").atMost(PROPAGATION_BOUND)
			.pollInSameThread()
			.pollDelay(Duration.ZERO)
			.pollInterval(Duration.ofMillis(1))
			.until(() -> {
				for (AppInstance r : routers) {
					if (!millis.containsKey(r.name) && r.router.cached(tenant).filter(seen).isPresent()) {
						millis.put(r.name, (System.nanoTime() - since) / 1_000_000);
					}
				}
				return millis.size() == routers.size();
			});
		return millis;
	}

	@Test
	@DisplayName("coldStartSnapshotIsStreamed: the snapshot query is read in fetch-size chunks, not loaded whole")
	void coldStartSnapshotIsStreamed() throws Exception {
		int rows = Directory.SNAPSHOT_FETCH_SIZE * 3;
		String prefix = PostgresCluster.tenant("snap");
		try (HikariDataSource admin = cluster.pool(cluster.directory(), 1, "snap-admin");
				Connection c = admin.getConnection();
				PreparedStatement ps = c.prepareStatement("INSERT INTO shard_directory_entry (tenant_id, shard_id, "
						+ "state, target_shard_id, epoch, version, updated_at, updated_by) SELECT ? || '-' || g, "
						+ "'shard-1', 'DELETED', NULL, 1, 1, CURRENT_TIMESTAMP, 'snapshot-test' "
						+ "FROM generate_series(1, ?) g")) {
			ps.setString(1, prefix);
			ps.setInt(2, rows);
			assertThat(ps.executeUpdate()).isEqualTo(rows);
		}
		String appName = "snapshot-" + prefix;
		try (HikariDataSource pool = cluster.pool(cluster.directory(), 1, appName);
				HikariDataSource killer = cluster.pool(cluster.directory(), 1, "snap-killer")) {
			Directory directory = new Directory(pool);
			AtomicInteger received = new AtomicInteger();
			// On the first row, terminate the snapshot's backend. A streamed result set fails at its next fetch;
			// one loaded whole would still hand over every row before failing at commit.
			DirectoryUnavailableException failure = catchThrowableOfType(DirectoryUnavailableException.class,
					() -> directory.snapshot(entry -> {
						if (received.getAndIncrement() == 0) {
							terminate(killer, appName);
						}
					}));
			assertThat(failure).isNotNull();
			assertThat(received.get()).isPositive().isLessThanOrEqualTo(Directory.SNAPSHOT_FETCH_SIZE);
			System.out.println("[cold start] snapshot delivered " + received.get() + " entries before its backend "
					+ "was terminated; the directory holds more than " + rows);
		}
	}

	private static void terminate(HikariDataSource killer, String applicationName) {
		try (Connection c = killer.getConnection();
				PreparedStatement ps = c.prepareStatement(
						"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = ?")) {
			ps.setString(1, applicationName);
			try (ResultSet rs = ps.executeQuery()) {
				assertThat(rs.next()).as("a backend named %s", applicationName).isTrue();
				assertThat(rs.getBoolean(1)).isTrue();
			}
		}
		catch (java.sql.SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
