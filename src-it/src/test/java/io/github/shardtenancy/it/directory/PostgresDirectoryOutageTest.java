package io.github.shardtenancy.it.directory;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Properties;

import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.DirectoryUnavailableException;
import io.github.shardtenancy.TenantUnavailableException;
import io.github.shardtenancy.DirectoryDownPolicy;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.MoveResult;
import io.github.shardtenancy.RouterSettings;
import io.github.shardtenancy.TenantState;
import io.github.shardtenancy.internal.directory.Directory;
import io.github.shardtenancy.internal.routing.Router;
import io.github.shardtenancy.it.support.AppInstance;
import io.github.shardtenancy.it.support.PgNotes;
import io.github.shardtenancy.postgresql.DirectoryWatcher;
import io.github.shardtenancy.postgresql.WatcherSettings;
import io.github.shardtenancy.postgresql.WatcherStatus;
import io.github.shardtenancy.testing.pg.PostgresCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

@DisplayName("PostgreSQL directory outage: the cache serves ACTIVE tenants, moving ones fail closed, the watcher recovers")
class PostgresDirectoryOutageTest {

	static final Duration BOUND = Duration.ofSeconds(30);

	/** The router's own sync is long: the watcher is what notices the outage and the recovery. */
	static final RouterSettings SETTINGS = RouterSettings.defaults().withSyncInterval(Duration.ofMinutes(10));

	static final WatcherSettings WATCHING = WatcherSettings.defaults()
		.withPollInterval(Duration.ofMinutes(10))
		.withBackoff(Duration.ofMillis(100), Duration.ofMillis(500))
		.withConnectTimeout(Duration.ofSeconds(2));

	static PostgresCluster cluster;

	@BeforeAll
	static void servers() {
		cluster = PostgresCluster.shared();
	}

	@AfterEach
	void restartStoppedServers() {
		cluster.ensureAllRunning();
	}

	@Test
	@DisplayName("directoryServerStopped: ACTIVE commits from cache, MIGRATING fails closed, a miss is DirectoryUnavailable; after restart the watcher resyncs")
	void directoryServerStoppedAndRestarted() throws Exception {
		String active = PostgresCluster.tenant("out-active");
		String migrating = PostgresCluster.tenant("out-migrating");
		String uncached = PostgresCluster.tenant("out-uncached");
		try (AppInstance app = AppInstance.watched(cluster, "outage-app", SETTINGS, 2, WATCHING, null);
				AppInstance strict = AppInstance.watched(cluster, "outage-strict",
						SETTINGS.withDirectoryDownPolicy(DirectoryDownPolicy.FAIL_CLOSED), 2, WATCHING, null);
				AppInstance operator = AppInstance.plain(cluster, "outage-op", RouterSettings.defaults(), 2)) {
			operator.admin.create(active, "shard-1");
			DirectoryEntry m = operator.admin.create(migrating, "shard-2");
			operator.admin.create(uncached, "shard-3");
			DirectoryEntry marked = operator.directory.update(migrating, m.epoch(), "shard-2", TenantState.MIGRATING,
					"shard-3", "outage-op");
			await("both routers hold the MIGRATING entry").atMost(BOUND).until(() -> app.router.cached(migrating)
				.filter(e -> e.version() == marked.version()).isPresent()
					&& strict.router.cached(migrating).filter(e -> e.version() == marked.version()).isPresent());
			await("both routers hold the ACTIVE entry").atMost(BOUND)
				.until(() -> app.router.cached(active).isPresent() && strict.router.cached(active).isPresent());
			app.router.invalidate(uncached);
			WatcherStatus before = app.watcher.status();

			cluster.directory().stop();

			await("the watcher notices and the router marks the directory down").atMost(BOUND)
				.until(() -> app.watcher.state() == DirectoryWatcher.State.RECONNECTING
							&& app.router.directoryDownSince().isPresent()
							&& strict.router.directoryDownSince().isPresent());
			assertThat(app.watcher.downSince()).isPresent();
			assertThat(app.router.isReady()).isTrue();
			assertThat(strict.router.isReady()).isFalse();

			for (int i = 0; i < 3; i++) {
				app.inTransaction(active, c -> {
					PgNotes.insertNote(c, active, "while the directory is down");
					return null;
				});
			}
			assertThat(PgNotes.countNotes(app, "shard-1", active)).isEqualTo(3);
			assertThat(app.router.stats().servedStale()).isGreaterThanOrEqualTo(3);

			TenantUnavailableException closed = catchThrowableOfType(TenantUnavailableException.class,
					() -> app.inTransaction(migrating, c -> null));
			assertThat(closed.state()).isEqualTo(TenantState.MIGRATING);
			assertThat(closed.tenantId()).isEqualTo(migrating);

			DirectoryUnavailableException miss = catchThrowableOfType(DirectoryUnavailableException.class,
					() -> app.inTransaction(uncached, c -> null));
			assertThat(miss.tenantId()).isEqualTo(uncached);

			DirectoryUnavailableException refused = catchThrowableOfType(DirectoryUnavailableException.class,
					() -> strict.inTransaction(active, c -> null));
			assertThat(refused.tenantId()).isEqualTo(active);

			cluster.directory().start();

			assertThat(app.watcher.awaitListening(BOUND)).isTrue();
			assertThat(strict.watcher.awaitListening(BOUND)).isTrue();
			WatcherStatus after = app.watcher.status();
			assertThat(after.reconnects()).isGreaterThan(before.reconnects());
			assertThat(after.resyncs()).isGreaterThan(before.resyncs());
			assertThat(after.downSince()).isNull();
			assertThat(app.router.directoryDownSince()).isEmpty();
			assertThat(strict.router.isReady()).isTrue();

			String later = PostgresCluster.tenant("out-later");
			DirectoryEntry created = operator.admin.create(later, "shard-2");
			await("a change made after the restart reaches the router").atMost(BOUND)
				.until(() -> app.router.cached(later).filter(e -> e.version() == created.version()).isPresent());
			assertThat(app.watcher.status().notifications()).isGreaterThan(after.notifications());
			app.inTransaction(uncached, c -> null); // the miss is served again
		}
	}

	@Test
	@DisplayName("listenerKilledWhileTenantMoves: after the reconnect the first transaction goes to the new shard with 0 retries")
	void listenerKilledWhileATenantMoves() throws Exception {
		String tenant = PostgresCluster.tenant("kill");
		String role = "it_watcher";
		try (HikariDataSource admin = cluster.pool(cluster.directory(), 1, "kill-admin")) {
			sql(admin, "DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '" + role + "') THEN "
					+ "CREATE ROLE " + role + " LOGIN; END IF; END $$");
			sql(admin, "ALTER ROLE " + role + " LOGIN");
			Properties asWatcher = new Properties();
			asWatcher.setProperty("user", role);
			try (AppInstance app = AppInstance.watched(cluster, "kill-app", SETTINGS, 2, WATCHING, asWatcher);
					AppInstance operator = AppInstance.plain(cluster, "kill-op", RouterSettings.defaults(), 2)) {
				operator.admin.create(tenant, "shard-1");
				await("the app sees the tenant").atMost(BOUND).until(() -> app.router.cached(tenant).isPresent());
				app.inTransaction(tenant, c -> {
					PgNotes.insertNote(c, tenant, "before the move");
					return null;
				});
				int pid = app.watcher.status().listenerBackendPid();
				assertThat(pid).isPositive();
				long invalidationsBefore = app.router.stats().invalidations();

				// The listener cannot come back until the move is done: its role may not log in meanwhile.
				sql(admin, "ALTER ROLE " + role + " NOLOGIN");
				sql(admin, "SELECT pg_terminate_backend(" + pid + ")");
				await("the watcher lost its listener").atMost(BOUND)
					.until(() -> app.watcher.state() == DirectoryWatcher.State.RECONNECTING);
				MoveResult moved = operator.admin.move(tenant, "shard-2");
				assertThat(app.watcher.state()).isEqualTo(DirectoryWatcher.State.RECONNECTING);
				sql(admin, "ALTER ROLE " + role + " LOGIN");

				assertThat(app.watcher.awaitListening(BOUND)).isTrue();
				assertThat(app.watcher.status().listenerBackendPid()).isNotEqualTo(pid);
				assertThat(app.watcher.status().reconnects()).isGreaterThanOrEqualTo(1);
				assertThat(app.router.cached(tenant)).get().satisfies(e -> {
					assertThat(e.shardId()).isEqualTo("shard-2");
					assertThat(e.version()).isEqualTo(moved.flipVersion());
				});

				// One attempt, no retry loop: it must succeed on the new owner.
				app.inTransaction(tenant, c -> {
					PgNotes.insertNote(c, tenant, "after the reconnect");
					return null;
				});
				assertThat(app.router.stats().invalidations()).isEqualTo(invalidationsBefore);
				assertThat(PgNotes.countNotes(app, "shard-2", tenant)).isEqualTo(2);
				assertThat(PgNotes.countNotes(app, "shard-1", tenant)).isZero();
			}
			finally {
				sql(admin, "ALTER ROLE " + role + " LOGIN");
			}
		}
	}

	@Test
	@DisplayName("aRouterThatNeverLoadedIsNotReady: started while the directory is down, ready once it is back; its watcher starts reconnecting")
	void routerStartedWhileTheDirectoryIsDown() throws Exception {
		cluster.directory().stop();
		try (HikariDataSource pool = cluster.pool(cluster.directory(), 2, "cold-directory");
				Router router = new Router(new Directory(pool),
						SETTINGS.withSyncInterval(Duration.ofMillis(200)));
				DirectoryWatcher watcher = DirectoryWatcher.of(router, cluster.directory().jdbcUrl(),
						cluster.directory().user(), cluster.directory().password())) {
			assertThat(catchThrowableOfType(DirectoryUnavailableException.class, router::start)).isNotNull();
			assertThat(router.isReady()).isFalse();
			assertThat(catchThrowableOfType(DirectoryUnavailableException.class,
					() -> router.route(PostgresCluster.tenant("cold")))).isNotNull();
			watcher.start();
			assertThat(watcher.state()).isEqualTo(DirectoryWatcher.State.RECONNECTING);
			assertThat(watcher.downSince()).isPresent();

			cluster.directory().start();

			assertThat(watcher.awaitListening(BOUND)).isTrue();
			await("the router loaded the directory").atMost(BOUND).until(router::isReady);
			assertThat(router.directoryDownSince()).isEmpty();
		}
	}

	static void sql(HikariDataSource ds, String sql) throws SQLException {
		try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
			st.execute(sql);
		}
	}

}
