package io.github.shardtenancy.it.routing;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.internal.directory.Directory;
import io.github.shardtenancy.internal.directory.DirectoryChanges;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.TenantState;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import io.github.shardtenancy.RouterSettings;
import io.github.shardtenancy.internal.routing.Router;
import io.github.shardtenancy.testing.pg.PostgresCluster;
import io.github.shardtenancy.testing.pg.PostgresServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * On a PostgreSQL directory (a database of its own on the shared directory server, so that a snapshot reads only this
 * test's tenants): a sync or snapshot load that read a tenant's entry, and an invalidation for a newer change of that
 * tenant that lands before the read is applied; the invalidation wins. The snapshot is held back in the middle of its
 * streamed query (an open transaction with a cursor) while another connection moves the tenant. Each interleaving is
 * forced with latches and repeated {@value #REPETITIONS} times.
 */
@DisplayName("PostgreSQL directory: a router sync in flight never undoes an invalidation")
class PostgresRouterSyncRaceTest {

	private static final int REPETITIONS = 1_000;

	private static final List<String> SHARDS = PostgresCluster.SHARD_IDS;

	private final PostgresCluster cluster = PostgresCluster.shared();

	private final String database = "router_race_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);

	private final ExecutorService syncThread = Executors.newSingleThreadExecutor();

	private HikariDataSource pool;

	private Directory directory;

	private GatedDirectory gated;

	private Router router;

	@BeforeEach
	void setUp() throws SQLException {
		PostgresServer server = this.cluster.directory();
		try (Connection c = DriverManager.getConnection(server.jdbcUrl(), server.user(), server.password());
				Statement s = c.createStatement()) {
			s.execute("CREATE DATABASE " + this.database);
		}
		String url = server.jdbcUrl();
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(url.substring(0, url.lastIndexOf('/') + 1) + this.database);
		config.setUsername(server.user());
		config.setPassword(server.password());
		config.setMaximumPoolSize(4);
		config.setMinimumIdle(0);
		config.setPoolName(this.database);
		this.pool = new HikariDataSource(config);
		ShardTenancyMigrations.migrateDirectory(this.pool);
		this.directory = new Directory(this.pool);
		this.gated = new GatedDirectory(this.pool);
		this.router = new Router(this.gated, RouterSettings.defaults());
	}

	@AfterEach
	void tearDown() {
		this.syncThread.shutdownNow();
		this.router.close();
		this.pool.close();
		PostgresServer server = this.cluster.directory();
		try (Connection c = DriverManager.getConnection(server.jdbcUrl(), server.user(), server.password());
				Statement s = c.createStatement()) {
			s.execute("DROP DATABASE IF EXISTS " + this.database + " WITH (FORCE)");
		}
		catch (SQLException ex) {
			// the server is shared and stopped at the end of the run anyway
		}
	}

	@Test
	@DisplayName("refresh: an entry read before an invalidation is not cached; the next lookup reads the newer one")
	void refreshInFlightDoesNotCacheWhatItReadBeforeAnInvalidation() throws Exception {
		String t = "race-t";
		String neighbour = "race-n";
		this.directory.create(t, SHARDS.get(0), "test");
		this.directory.create(neighbour, SHARDS.get(0), "test");
		this.router.refresh();

		for (int i = 0; i < REPETITIONS; i++) {
			String repetition = "repetition " + i;
			DirectoryEntry read = move(this.router.route(t)); // the change the sync reads
			DirectoryEntry neighbourRead = move(this.router.route(neighbour));
			long versionBefore = this.router.version();
			Gate gate = this.gated.arm(new Gate(null));
			CompletableFuture<Long> sync = CompletableFuture.supplyAsync(this.router::refresh, this.syncThread);
			assertThat(gate.readDone.await(30, TimeUnit.SECONDS)).as(repetition).isTrue();
			assertThat(gate.readEntry(t)).as(repetition).contains(read);

			DirectoryEntry newer = move(read); // a move the sync did not read
			this.router.invalidate(t); // what a shard fence rejection of the old route does
			gate.release.countDown();

			assertThat(sync.get(30, TimeUnit.SECONDS)).as(repetition).isGreaterThanOrEqualTo(versionBefore);
			assertThat(this.router.cached(t)).as(repetition + ": the entry the sync read before the invalidation")
				.isEmpty();
			assertThat(this.router.cached(neighbour)).as(repetition + ": the other tenant the sync read")
				.contains(neighbourRead);
			assertThat(this.router.route(t)).as(repetition).isEqualTo(newer);
		}
	}

	@Test
	@DisplayName("snapshot: an entry streamed before an invalidation is not cached; the next lookup reads the newer one")
	void snapshotInFlightDoesNotCacheWhatItReadBeforeAnInvalidation() throws Exception {
		String t = "race-t";
		String neighbour = "race-n";
		this.directory.create(t, SHARDS.get(0), "test");
		this.directory.create(neighbour, SHARDS.get(0), "test");
		this.router.loadSnapshot();

		for (int i = 0; i < REPETITIONS; i++) {
			String repetition = "repetition " + i;
			DirectoryEntry read = move(this.router.route(t)); // the entry the snapshot reads
			DirectoryEntry neighbourRead = move(this.router.route(neighbour));
			long versionBefore = this.router.version();
			Gate gate = this.gated.arm(new Gate(t));
			CompletableFuture<Long> snapshot = CompletableFuture.supplyAsync(this.router::loadSnapshot,
					this.syncThread);
			assertThat(gate.readDone.await(30, TimeUnit.SECONDS)).as(repetition).isTrue();
			assertThat(gate.readEntry(t)).as(repetition).contains(read);

			DirectoryEntry newer = move(read);
			this.router.invalidate(t);
			gate.release.countDown();

			assertThat(snapshot.get(30, TimeUnit.SECONDS)).as(repetition).isGreaterThanOrEqualTo(versionBefore);
			assertThat(this.router.cached(t)).as(repetition + ": the entry the snapshot read before the invalidation")
				.isEmpty();
			assertThat(this.router.cached(neighbour)).as(repetition + ": the other tenant the snapshot read")
				.contains(neighbourRead);
			assertThat(this.router.route(t)).as(repetition).isEqualTo(newer);
		}
	}

	/** Moves the tenant to the next shard in the directory (another writer's change). */
	private DirectoryEntry move(DirectoryEntry current) {
		String next = SHARDS.get((SHARDS.indexOf(current.shardId()) + 1) % SHARDS.size());
		return this.directory.update(current.tenantId(), current.epoch(), next, TenantState.ACTIVE, null, "mover");
	}

	/** One held-back read: counted down once the directory read the rows, waits for {@link #release}. */
	private static final class Gate {

		final CountDownLatch readDone = new CountDownLatch(1);

		final CountDownLatch release = new CountDownLatch(1);

		/** For a snapshot: hold back when this tenant's entry was read; {@code null}: hold back a sync's read. */
		final String snapshotTenant;

		final AtomicReference<List<DirectoryEntry>> read = new AtomicReference<>(List.of());

		Gate(String snapshotTenant) {
			this.snapshotTenant = snapshotTenant;
		}

		Optional<DirectoryEntry> readEntry(String tenantId) {
			return this.read.get().stream().filter((e) -> e.tenantId().equals(tenantId)).findFirst();
		}

		void hold(List<DirectoryEntry> entries) {
			this.read.set(List.copyOf(entries));
			this.readDone.countDown();
			try {
				if (!this.release.await(30, TimeUnit.SECONDS)) {
					throw new IllegalStateException("never released");
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
		}

	}

	/** The real PostgreSQL directory, whose next sync or snapshot read is held back by an armed {@link Gate}. */
	private static final class GatedDirectory extends Directory {

		private final AtomicReference<Gate> armed = new AtomicReference<>();

		GatedDirectory(HikariDataSource pool) {
			super(pool);
		}

		Gate arm(Gate gate) {
			this.armed.set(gate);
			return gate;
		}

		@Override
		public DirectoryChanges changesSince(long sinceVersion) {
			DirectoryChanges changes = super.changesSince(sinceVersion);
			Gate gate = this.armed.get();
			if (gate != null && gate.snapshotTenant == null && this.armed.compareAndSet(gate, null)) {
				gate.hold(changes.entries());
			}
			return changes;
		}

		@Override
		public long snapshot(Consumer<DirectoryEntry> consumer) {
			return super.snapshot((entry) -> {
				Gate gate = this.armed.get();
				if (gate != null && entry.tenantId().equals(gate.snapshotTenant)
						&& this.armed.compareAndSet(gate, null)) {
					gate.hold(List.of(entry));
				}
				consumer.accept(entry);
			});
		}

	}

}
