package io.github.shardtenancy.it.routing;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.ShardTenancyConfigurationException;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.RouterSettings;
import io.github.shardtenancy.TenantMover;
import io.github.shardtenancy.internal.directory.Directory;
import io.github.shardtenancy.internal.hibernate.ShardMultiTenantConnectionProvider;
import io.github.shardtenancy.internal.hibernate.TenantRoutingDataSource;
import io.github.shardtenancy.internal.lifecycle.DirectoryAdmin;
import io.github.shardtenancy.internal.move.Mover;
import io.github.shardtenancy.internal.routing.Router;
import io.github.shardtenancy.internal.topology.Topology;
import io.github.shardtenancy.it.boot.PostgresOrdersApp;
import io.github.shardtenancy.it.support.PgNotes;
import io.github.shardtenancy.postgresql.DirectoryWatcher;
import io.github.shardtenancy.postgresql.WatcherSettings;
import io.github.shardtenancy.testing.pg.PgBouncer;
import io.github.shardtenancy.testing.pg.PostgresCluster;
import io.github.shardtenancy.testing.pg.PostgresServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * A transaction-pooling proxy (PgBouncer, {@code pool_mode = transaction}) in front of a shard and of the directory:
 * consecutive transactions of one client connection may run on different server connections, and one server
 * connection serves many clients, so anything bound to a server session leaks from one client to another. The fence
 * binds tenant and version transaction-locally, so routed transactions through the proxy each see exactly their own;
 * the listener, which needs a session of its own, refuses such an endpoint at start-up.
 *
 * <p>Skipped when PgBouncer is not installed, unless {@value PgBouncer#REQUIRE}=1 (CI).
 */
@DisplayName("PostgreSQL behind PgBouncer in transaction pooling mode")
class PostgresPgBouncerTest {

	/** Server connections PgBouncer keeps per alias: far fewer than the concurrent client transactions. */
	static final int SERVER_POOL = 4;

	static PostgresCluster cluster;

	static PgBouncer bouncer;

	@BeforeAll
	static void start() {
		PgBouncer.binary(); // skip (or fail under CI) before starting any server when the binary is missing
		cluster = PostgresCluster.shared();
		Map<String, Map.Entry<PostgresServer, Integer>> aliases = new LinkedHashMap<>();
		aliases.put("shard1", Map.entry(cluster.shard("shard-1"), SERVER_POOL));
		aliases.put("leakcheck", Map.entry(cluster.shard("shard-1"), 1));
		aliases.put("directory", Map.entry(cluster.directory(), 2));
		bouncer = PgBouncer.start(aliases);
	}

	@AfterAll
	static void stop() {
		if (bouncer != null) {
			bouncer.close();
		}
	}

	@Test
	@DisplayName("50 concurrent transactions alternating two tenants on a shard behind the proxy each see only their own tenant and directory version, and write only their own rows")
	void concurrentTransactionsThroughTheProxyEachSeeTheirOwnTenant() throws Exception {
		String a = PostgresCluster.tenant("bouncer-a");
		String b = PostgresCluster.tenant("bouncer-b");
		try (HikariDataSource directoryPool = cluster.pool(cluster.directory(), 2, "bouncer-directory");
				HikariDataSource shardPool = proxied("shard1", 50, "bouncer-shard-1");
				Router router = new Router(new Directory(directoryPool), RouterSettings.defaults());
				Topology topology = new Topology()) {
			topology.addShard("shard-1", (javax.sql.DataSource) shardPool);
			router.start();
			DirectoryAdmin admin = new DirectoryAdmin(router.directory(), router, topology,
					new Mover(router.directory(), router, topology, List.of(PostgresCluster.NOTES), "bouncer",
							Runnable::run),
					MoveSettings.stopTheWorld(), "bouncer");
			Map<String, Long> versions = Map.of(a, admin.create(a, "shard-1").version(), b,
					admin.create(b, "shard-1").version());
			TenantRoutingDataSource routed = new TenantRoutingDataSource(
					new ShardMultiTenantConnectionProvider(router, topology));
			ExecutorService executor = Executors.newFixedThreadPool(50);
			CountDownLatch go = new CountDownLatch(1);
			Set<Integer> serverPids = ConcurrentHashMap.newKeySet();
			List<Future<List<String>>> seen = new ArrayList<>();
			try {
				for (int i = 0; i < 50; i++) {
					String tenant = (i % 2 == 0) ? a : b;
					seen.add(executor.submit(() -> {
						go.await();
						try (TenantContext.Scope scope = TenantContext.bind(tenant);
								Connection c = routed.getConnection()) {
							c.setAutoCommit(false); // one transaction, committed below
							List<String> observed = new ArrayList<>();
							observed.add(variables(c, serverPids));
							try (Statement st = c.createStatement()) {
								st.execute("SELECT pg_sleep(0.02)"); // let the others interleave
							}
							PgNotes.insertNote(c, tenant, "through the proxy");
							observed.add(variables(c, serverPids));
							c.commit();
							return observed;
						}
					}));
				}
				go.countDown();
				for (int i = 0; i < 50; i++) {
					String tenant = (i % 2 == 0) ? a : b;
					assertThat(seen.get(i).get(60, TimeUnit.SECONDS)).as("transaction %d of %s", i, tenant)
						.containsOnly(tenant + "@" + versions.get(tenant));
				}
			}
			finally {
				executor.shutdownNow();
			}
			assertThat(serverPids).as("server connections the 50 transactions shared").hasSizeBetween(1, SERVER_POOL);
			assertThat(rows(a)).isEqualTo(25);
			assertThat(rows(b)).isEqualTo(25);
			// A client that is not the library, on the proxy's server connections after all that: nothing bound.
			try (Connection c = shardPool.getConnection(); Statement st = c.createStatement();
					ResultSet rs = st.executeQuery("SELECT coalesce(current_setting('shard_tenancy.tenant', true), '')")) {
				rs.next();
				assertThat(rs.getString(1)).isEmpty();
			}
		}
	}

	@Test
	@DisplayName("control: through the same proxy a session-level setting of one client is seen by the next client, so the check above can see a leak")
	void sessionLevelSettingsLeakThroughTheProxy() throws Exception {
		try (HikariDataSource leaky = proxied("leakcheck", 2, "bouncer-leakcheck")) {
			try (Connection first = leaky.getConnection(); Statement st = first.createStatement()) {
				st.execute("SELECT set_config('shard_tenancy.tenant', 'leaked-tenant', false)");
			}
			try (Connection second = leaky.getConnection(); Statement st = second.createStatement()) {
				second.setAutoCommit(true);
				try (ResultSet rs = st.executeQuery("SELECT current_setting('shard_tenancy.tenant', true)")) {
					rs.next();
					assertThat(rs.getString(1)).isEqualTo("leaked-tenant");
				}
				st.execute("SELECT set_config('shard_tenancy.tenant', '', false)");
			}
		}
	}

	@Test
	@DisplayName("the directory listener pointed at the proxy is refused at start-up with an error naming the setting")
	void listenerThroughTheProxyIsRefused() {
		try (HikariDataSource directoryPool = cluster.pool(cluster.directory(), 2, "bouncer-watch-directory");
				Router router = new Router(new Directory(directoryPool), RouterSettings.defaults())) {
			router.start();
			Properties props = new Properties();
			props.setProperty("user", cluster.directory().user());
			props.setProperty("password", cluster.directory().password());
			DirectoryWatcher watcher = new DirectoryWatcher(router, bouncer.jdbcUrl("directory"), props,
					WatcherSettings.defaults().withSetting("shard-tenancy.directory.url"));

			Throwable refused = catchThrowable(watcher::start);

			assertThat(refused).isInstanceOfSatisfying(ShardTenancyConfigurationException.class, ex -> {
				assertThat(ex.setting()).isEqualTo("shard-tenancy.directory.url");
				assertThat(ex.getMessage()).contains("shard-tenancy.directory.url").contains("pooler");
			});
			assertThat(watcher.state()).isEqualTo(DirectoryWatcher.State.STOPPED);
			watcher.close();
		}
	}

	@Test
	@DisplayName("a Spring Boot application whose directory URL leads to the proxy fails to start, naming shard-tenancy.directory.url")
	void bootApplicationWithTheDirectoryBehindTheProxyFailsToStart() {
		Throwable failed = catchThrowable(() -> PostgresOrdersApp.start(cluster, "pg-bouncer",
				"shard-tenancy.directory.url=" + bouncer.jdbcUrl("directory")).close());

		ShardTenancyConfigurationException cause = null;
		for (Throwable t = failed; t != null; t = t.getCause()) {
			if (t instanceof ShardTenancyConfigurationException c) {
				cause = c;
			}
		}
		assertThat(cause).as("configuration error in %s", failed).isNotNull();
		assertThat(cause.setting()).isEqualTo("shard-tenancy.directory.url");
		assertThat(cause.getMessage()).contains("shard-tenancy.directory.url").contains("pooler");
	}

	/** @return "tenant@version" as the transaction's session variables read, recording the server's backend pid */
	static String variables(Connection c, Set<Integer> serverPids) throws SQLException {
		try (Statement st = c.createStatement();
				ResultSet rs = st.executeQuery("SELECT current_setting('shard_tenancy.tenant', true), "
						+ "current_setting('shard_tenancy.version', true), pg_backend_pid()")) {
			rs.next();
			serverPids.add(rs.getInt(3));
			return rs.getString(1) + "@" + rs.getString(2);
		}
	}

	static long rows(String tenant) throws SQLException {
		try (HikariDataSource ds = cluster.pool(cluster.shard("shard-1"), 1, "bouncer-count");
				Connection c = ds.getConnection();
				PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM pg_note WHERE tenant_id = ?")) {
			ps.setString(1, tenant);
			try (ResultSet rs = ps.executeQuery()) {
				rs.next();
				return rs.getLong(1);
			}
		}
	}

	static HikariDataSource proxied(String alias, int size, String name) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(bouncer.jdbcUrl(alias));
		config.setUsername("postgres");
		config.setPassword("postgres");
		config.setMaximumPoolSize(size);
		config.setMinimumIdle(0);
		config.setPoolName(name);
		config.setConnectionTimeout(20_000);
		return new HikariDataSource(config);
	}

}
