package io.github.shardtenancy.internal.routing;

import io.github.shardtenancy.RouterSettings;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import io.github.shardtenancy.internal.directory.Directory;
import io.github.shardtenancy.internal.directory.DirectoryChanges;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.TenantState;
import io.github.shardtenancy.testing.ShardTenancyFixture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A sync ({@link Router#refresh()}) or snapshot load ({@link Router#loadSnapshot()}) that read a tenant's
 * entry, and an {@link Router#invalidate(String)} for a newer change of that tenant that lands before the read
 * is applied: the invalidation wins. Each interleaving is forced with latches in a real H2 directory whose read is held
 * back after it read the rows, and repeated {@value #REPETITIONS} times.
 */
@DisplayName("Router: a sync in flight never undoes an invalidation")
class TenantRouterSyncRaceTest {

	private static final int REPETITIONS = 1_000;

	private static final List<String> SHARDS = List.of("shard-1", "shard-2", "shard-3");

	private ShardTenancyFixture fixture;

	private Directory directory;

	private GatedDirectory gated;

	private Router router;

	private final ExecutorService syncThread = Executors.newSingleThreadExecutor();

	@BeforeEach
	void setUp() {
		this.fixture = ShardTenancyFixture.create("router-race", 0);
		this.directory = this.fixture.directory();
		this.gated = new GatedDirectory(this.fixture);
		this.router = new Router(this.gated, RouterSettings.defaults());
	}

	@AfterEach
	void tearDown() {
		this.syncThread.shutdownNow();
		this.router.close();
		this.fixture.close();
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
			DirectoryEntry current = this.router.route(t);
			DirectoryEntry read = move(current); // the change the sync reads
			DirectoryEntry neighbourRead = move(this.router.route(neighbour));
			long versionBefore = this.router.version();
			Gate gate = this.gated.arm(Gate.onChanges());
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
			assertThat(this.router.version()).as(repetition).isGreaterThanOrEqualTo(read.version());
			assertThat(this.router.route(t)).as(repetition).isEqualTo(newer);
		}
	}

	@Test
	@DisplayName("snapshot: an entry read before an invalidation is not cached; the next lookup reads the newer one")
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
			Gate gate = this.gated.arm(Gate.onSnapshotEntry(t));
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

	@Test
	@DisplayName("refresh: more invalidations during one sync than the router tracks still never cache a stale entry")
	void refreshInFlightPastTheInvalidationBoundStaysSafe() throws Exception {
		String t = "race-t";
		String neighbour = "race-n";
		this.directory.create(t, SHARDS.get(0), "test");
		this.directory.create(neighbour, SHARDS.get(0), "test");
		this.router.refresh();
		DirectoryEntry read = move(this.router.route(t));
		DirectoryEntry neighbourRead = move(this.router.route(neighbour));
		Gate gate = this.gated.arm(Gate.onChanges());
		CompletableFuture<Long> sync = CompletableFuture.supplyAsync(this.router::refresh, this.syncThread);
		assertThat(gate.readDone.await(30, TimeUnit.SECONDS)).isTrue();

		for (int i = 0; i <= Router.MAX_TRACKED_INVALIDATIONS; i++) {
			this.router.invalidate("other-" + i);
		}
		DirectoryEntry newer = move(read);
		this.router.invalidate(t);
		gate.release.countDown();

		assertThat(sync.get(30, TimeUnit.SECONDS)).isGreaterThanOrEqualTo(read.version());
		assertThat(this.router.cached(t)).isEmpty();
		assertThat(this.router.cached(neighbour)).as("a cached tenant is still updated").contains(neighbourRead);
		assertThat(this.router.route(t)).isEqualTo(newer);
	}

	@Test
	@DisplayName("refresh: a newer entry applied while the sync is in flight (a watcher) is kept")
	void newerApplyWhileRefreshInFlightIsKept() throws Exception {
		String t = "race-t";
		this.directory.create(t, SHARDS.get(0), "test");
		this.router.refresh();
		for (int i = 0; i < REPETITIONS; i++) {
			String repetition = "repetition " + i;
			DirectoryEntry read = move(this.router.route(t));
			Gate gate = this.gated.arm(Gate.onChanges());
			CompletableFuture<Long> sync = CompletableFuture.supplyAsync(this.router::refresh, this.syncThread);
			assertThat(gate.readDone.await(30, TimeUnit.SECONDS)).as(repetition).isTrue();

			DirectoryEntry newer = move(read);
			this.router.apply(newer); // what a push watcher does with the notification of the newer change
			gate.release.countDown();

			sync.get(30, TimeUnit.SECONDS);
			assertThat(this.router.cached(t)).as(repetition).contains(newer);
		}
	}

	@Test
	@DisplayName("refresh: a lookup after the invalidation, while the sync is in flight, caches the newer entry for good")
	void lookupAfterInvalidationWhileRefreshInFlightIsKept() throws Exception {
		String t = "race-t";
		this.directory.create(t, SHARDS.get(0), "test");
		this.router.refresh();
		for (int i = 0; i < REPETITIONS; i++) {
			String repetition = "repetition " + i;
			DirectoryEntry read = move(this.router.route(t));
			Gate gate = this.gated.arm(Gate.onChanges());
			CompletableFuture<Long> sync = CompletableFuture.supplyAsync(this.router::refresh, this.syncThread);
			assertThat(gate.readDone.await(30, TimeUnit.SECONDS)).as(repetition).isTrue();

			DirectoryEntry newer = move(read);
			this.router.invalidate(t);
			assertThat(this.router.route(t)).as(repetition).isEqualTo(newer); // the retry's lookup
			gate.release.countDown();

			sync.get(30, TimeUnit.SECONDS);
			assertThat(this.router.cached(t)).as(repetition).contains(newer);
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

		private Gate(String snapshotTenant) {
			this.snapshotTenant = snapshotTenant;
		}

		static Gate onChanges() {
			return new Gate(null);
		}

		static Gate onSnapshotEntry(String tenantId) {
			return new Gate(tenantId);
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

	/** The real H2 directory, whose next sync or snapshot read is held back by an armed {@link Gate}. */
	private static final class GatedDirectory extends Directory {

		private final AtomicReference<Gate> armed = new AtomicReference<>();

		GatedDirectory(ShardTenancyFixture fixture) {
			super(fixture.directoryDataSource());
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
