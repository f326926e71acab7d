package io.github.shardtenancy.benchmarks;

import static io.github.shardtenancy.benchmarks.ResultsTable.fmt;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.internal.directory.Directory;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.TenantState;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import io.github.shardtenancy.postgresql.DirectoryWatcher;
import io.github.shardtenancy.RouterSettings;
import io.github.shardtenancy.internal.routing.Router;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * Figure 3, invalidation latency on PostgreSQL: from the commit of a directory change to the new entry being applied
 * on all of three routers (each with its own {@link DirectoryWatcher}, background sync at one hour so that only the
 * push path counts), versus raw pgjdbc {@code NOTIFY} delivery to three listening connections on the same server.
 *
 * <p>Both clocks start right before the writer's {@code Connection.commit()} (a wrapper around the writer's
 * connection records it) and stop when the third router applied the entry (a router subclass records
 * {@link Router#apply}) or the third listener returned from {@code getNotifications}. Ours and the baseline
 * alternate event by event; before each baseline event the routers' follow-up refreshes are awaited, so that the
 * baseline does not run while the watchers are still busy.
 */
final class InvalidationLatencyFigure {

	private static final String TENANT = "inv-tenant";

	private static final String RAW_CHANNEL = "bench_raw";

	private InvalidationLatencyFigure() {
	}

	/** A router that records when it applied each version of the watched tenant. */
	static final class TimedRouter extends Router {

		final Map<Long, Long> appliedAt = new ConcurrentHashMap<>();

		TimedRouter(Directory directory, RouterSettings settings) {
			super(directory, settings);
		}

		@Override
		public DirectoryEntry apply(DirectoryEntry entry) {
			DirectoryEntry applied = super.apply(entry);
			if (entry.tenantId().equals(TENANT)) {
				this.appliedAt.putIfAbsent(entry.version(), System.nanoTime());
			}
			return applied;
		}

	}

	/** A pool wrapper whose connections record the time right before each commit. */
	static final class CommitClock extends DelegatingDataSource {

		final AtomicLong lastCommit = new AtomicLong();

		CommitClock(DataSource target) {
			super(target);
		}

		@Override
		public Connection getConnection() throws SQLException {
			Connection target = super.getConnection();
			return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(),
					new Class<?>[] { Connection.class }, (proxy, method, args) -> {
						if (method.getName().equals("commit")) {
							this.lastCommit.set(System.nanoTime());
						}
						try {
							return method.invoke(target, args);
						}
						catch (InvocationTargetException ex) {
							throw ex.getCause();
						}
					});
		}

	}

	static Figure run(BenchPostgres pg, Sizes sizes) throws Exception {
		String name = "invalidation latency, 3 routers, PostgreSQL (p50 / p99)";
		pg.createDatabase("bench_invalidation");
		List<AutoCloseable> closing = new ArrayList<>();
		try {
			HikariDataSource writerPool = pg.pool("bench_invalidation", 2);
			closing.add(writerPool);
			ShardTenancyMigrations.migrateDirectory(writerPool);
			CommitClock clock = new CommitClock(writerPool);
			Directory writer = new Directory(clock);
			DirectoryEntry current = writer.create(TENANT, "shard-1", "benchmarks");

			RouterSettings settings = RouterSettings.defaults().withSyncInterval(Duration.ofHours(1));
			List<TimedRouter> routers = new ArrayList<>();
			for (int i = 0; i < 3; i++) {
				HikariDataSource pool = pg.pool("bench_invalidation", 2);
				closing.add(pool);
				TimedRouter router = new TimedRouter(new Directory(pool), settings);
				closing.add(router);
				router.start();
				DirectoryWatcher watcher = DirectoryWatcher.of(router, pg.url("bench_invalidation"), pg.user(),
						pg.password());
				closing.add(0, watcher);
				watcher.start();
				if (!watcher.awaitListening(Duration.ofSeconds(30))) {
					throw new IllegalStateException("directory watcher " + i + " is not listening");
				}
				routers.add(router);
			}

			RawListeners raw = new RawListeners(pg);
			closing.add(0, raw);
			Connection notifier = DriverManager.getConnection(pg.url("bench_invalidation"), pg.user(), pg.password());
			closing.add(notifier);
			notifier.setAutoCommit(false);

			int warmup = sizes.quick() ? 1 : 20;
			long[] ours = new long[sizes.invalidationEvents()];
			long[] base = new long[sizes.invalidationEvents()];
			for (int i = -warmup; i < sizes.invalidationEvents(); i++) {
				// Ours: one directory write (the move's flip is such a write), applied on all three routers.
				String next = current.shardId().equals("shard-1") ? "shard-2" : "shard-1";
				current = writer.update(TENANT, current.epoch(), next, TenantState.ACTIVE, null, "benchmarks");
				long committed = clock.lastCommit.get();
				long applied = 0;
				for (TimedRouter router : routers) {
					applied = Math.max(applied, await(router.appliedAt, current.version()));
				}
				// The watchers refresh after applying; let them finish so that the baseline runs on an idle machine.
				for (TimedRouter router : routers) {
					awaitVersion(router, current.version());
				}
				// Baseline: one NOTIFY committed, received by all three listeners.
				long seq = i + warmup + 1;
				try (PreparedStatement ps = notifier.prepareStatement("SELECT pg_notify(?, ?)")) {
					ps.setString(1, RAW_CHANNEL);
					ps.setString(2, Long.toString(seq));
					ps.execute();
				}
				long rawCommit = System.nanoTime();
				notifier.commit();
				long received = raw.awaitAll(seq);
				if (i >= 0) {
					ours[i] = applied - committed;
					base[i] = received - rawCommit;
				}
				Thread.sleep(sizes.quick() ? 1 : 5);
			}
			double ours50 = percentile(ours, 50) / 1e6;
			double ours99 = percentile(ours, 99) / 1e6;
			double base50 = percentile(base, 50) / 1e6;
			double base99 = percentile(base, 99) / 1e6;
			double ratio = ours99 / base99;
			// The spread: the p99 ratio within each fifth of the events (consecutive, both sides alternating).
			int chunks = Math.min(5, ours.length);
			double[] chunkRatios = new double[chunks];
			for (int c = 0; c < chunks; c++) {
				int from = c * ours.length / chunks;
				int to = (c + 1) * ours.length / chunks;
				chunkRatios[c] = percentile(Arrays.copyOfRange(ours, from, to), 99)
						/ percentile(Arrays.copyOfRange(base, from, to), 99);
			}
			String spread = fmt("p99 ratio per fifth of the events: %s; p50 ratio %.2f. ",
					Spread.of(chunkRatios).describe("%.2f"), ours50 / base50).replace("round", "fifth");
			String note = fmt("%d events. Ours = NOTIFY delivery + parsing the entry from the payload + "
					+ "Router.apply on each of the three watcher threads (no directory read before the apply; "
					+ "the watcher's refresh follows it). What is left is thread scheduling on a loaded machine.",
					sizes.invalidationEvents());
			return new Figure(name, fmt("%.2f / %.2f ms (raw NOTIFY)", base50, base99),
					fmt("%.2f / %.2f ms", ours50, ours99), ratio, "<= 1.00 at p99", Figure.verdict(ratio <= 1.0),
					spread + (ratio <= 1.0 ? fmt("%d events", sizes.invalidationEvents()) : note));
		}
		finally {
			for (AutoCloseable c : closing) {
				try {
					c.close();
				}
				catch (Exception ex) {
					// best effort
				}
			}
		}
	}

	private static long await(Map<Long, Long> appliedAt, long version) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		Long at;
		while ((at = appliedAt.get(version)) == null) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("directory version " + version + " was not applied within 30 s");
			}
			Thread.sleep(0, 200_000);
		}
		return at;
	}

	private static void awaitVersion(Router router, long version) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		while (router.version() < version) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("router did not reach directory version " + version + " within 30 s");
			}
			Thread.sleep(0, 200_000);
		}
	}

	static double percentile(long[] values, int p) {
		long[] sorted = values.clone();
		Arrays.sort(sorted);
		int index = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
		return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
	}

	/** Three raw pgjdbc listeners on their own connections and threads, recording when each payload arrived. */
	static final class RawListeners implements AutoCloseable {

		private final List<Map<Long, Long>> received = new ArrayList<>();

		private final List<Connection> connections = new ArrayList<>();

		private final List<Thread> threads = new ArrayList<>();

		private volatile boolean stopping;

		RawListeners(BenchPostgres pg) throws SQLException {
			for (int i = 0; i < 3; i++) {
				Connection c = DriverManager.getConnection(pg.url("bench_invalidation"), pg.user(), pg.password());
				c.setAutoCommit(true);
				try (Statement st = c.createStatement()) {
					st.execute("LISTEN " + RAW_CHANNEL);
				}
				Map<Long, Long> mine = new ConcurrentHashMap<>();
				this.received.add(mine);
				this.connections.add(c);
				Thread t = new Thread(() -> listen(c, mine), "bench-raw-listener-" + i);
				t.setDaemon(true);
				this.threads.add(t);
				t.start();
			}
		}

		private void listen(Connection c, Map<Long, Long> mine) {
			try {
				PGConnection pg = c.unwrap(PGConnection.class);
				while (!this.stopping) {
					PGNotification[] ns = pg.getNotifications(500);
					long now = System.nanoTime();
					if (ns != null) {
						for (PGNotification n : ns) {
							mine.putIfAbsent(Long.parseLong(n.getParameter()), now);
						}
					}
				}
			}
			catch (SQLException ex) {
				if (!this.stopping) {
					throw new IllegalStateException(ex);
				}
			}
		}

		long awaitAll(long seq) throws InterruptedException {
			long last = 0;
			for (Map<Long, Long> mine : this.received) {
				last = Math.max(last, await(mine, seq));
			}
			return last;
		}

		@Override
		public void close() throws Exception {
			this.stopping = true;
			for (Thread t : this.threads) {
				t.join(2000);
			}
			for (Connection c : this.connections) {
				c.close();
			}
		}

	}

}
