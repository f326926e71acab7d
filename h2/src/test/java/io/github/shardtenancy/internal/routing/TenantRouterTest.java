package io.github.shardtenancy.internal.routing;

import io.github.shardtenancy.RouterSettings;
import io.github.shardtenancy.RouterStats;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.shardtenancy.InvalidTenantIdException;
import io.github.shardtenancy.TenantUnavailableException;
import io.github.shardtenancy.UnknownTenantException;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.TenantState;
import io.github.shardtenancy.internal.directory.Directory;
import io.github.shardtenancy.testing.ShardTenancyFixture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

@DisplayName("Router")
class TenantRouterTest {

	private static final RouterSettings LONG_NEGATIVE_TTL = RouterSettings.defaults()
		.withNegativeTtl(Duration.ofMinutes(5));

	private static ShardTenancyFixture fixture;

	private static Directory directory;

	private final List<Router> routers = new ArrayList<>();

	private final ExecutorService pool = Executors.newFixedThreadPool(8);

	private static final AtomicInteger tenants = new AtomicInteger();

	@BeforeAll
	static void setUp() {
		fixture = ShardTenancyFixture.create("router", 0);
		directory = fixture.directory();
	}

	@AfterAll
	static void tearDown() {
		fixture.close();
	}

	@AfterEach
	void closeRouters() {
		this.routers.forEach(Router::close);
		this.pool.shutdownNow();
	}

	private Router router(Directory on, RouterSettings settings) {
		Router router = new Router(on, settings);
		this.routers.add(router);
		return router;
	}

	private static String newTenant() {
		return "router-t" + tenants.incrementAndGet();
	}

	@Test
	@DisplayName("a miss reads the directory once; later lookups are cache hits")
	void missReadsDirectoryOnce() {
		String t = newTenant();
		DirectoryEntry created = directory.create(t, "shard-1", "test");
		Router router = router(directory, RouterSettings.defaults());

		assertThat(router.cached(t)).isEmpty();
		assertThat(router.route(t)).isEqualTo(created);
		assertThat(router.route(t)).isEqualTo(created);
		assertThat(router.route(t)).isEqualTo(created);

		RouterStats stats = router.stats();
		assertThat(stats.directoryReads()).isEqualTo(1);
		assertThat(stats.misses()).isEqualTo(1);
		assertThat(stats.hits()).isEqualTo(2);
		assertThat(router.cached(t)).contains(created);
	}

	@Test
	@DisplayName("8 threads missing the same tenant at once share one directory read")
	void concurrentMissesShareOneRead() throws Exception {
		String t = newTenant();
		DirectoryEntry created = directory.create(t, "shard-1", "test");
		AtomicInteger finds = new AtomicInteger();
		Router[] holder = new Router[1];
		// The real directory, whose single-entry read waits until all 8 lookups have missed.
		Directory gated = new Directory(fixture.directoryDataSource()) {
			@Override
			public Optional<DirectoryEntry> find(String tenantId) {
				finds.incrementAndGet();
				await("all 8 lookups missed").atMost(Duration.ofSeconds(30))
					.until(() -> holder[0].stats().misses() == 8);
				return super.find(tenantId);
			}
		};
		Router router = router(gated, RouterSettings.defaults());
		holder[0] = router;
		CountDownLatch start = new CountDownLatch(1);
		List<Future<DirectoryEntry>> lookups = new ArrayList<>();
		for (int i = 0; i < 8; i++) {
			lookups.add(this.pool.submit(() -> {
				start.await();
				return router.route(t);
			}));
		}
		start.countDown();

		for (Future<DirectoryEntry> lookup : lookups) {
			assertThat(lookup.get(30, TimeUnit.SECONDS)).isEqualTo(created);
		}
		assertThat(finds).hasValue(1);
		assertThat(router.stats().directoryReads()).isEqualTo(1);
		assertThat(router.stats().misses()).isEqualTo(8);
	}

	@Test
	@DisplayName("an unknown tenant raises UnknownTenantException and is negatively cached: the second lookup reads nothing")
	void unknownTenantIsNegativelyCached() {
		String t = newTenant();
		Router router = router(directory, LONG_NEGATIVE_TTL);

		assertThatThrownBy(() -> router.route(t)).isInstanceOf(UnknownTenantException.class)
			.hasMessageContaining(t);
		directory.create(t, "shard-1", "test"); // created meanwhile by another instance, unseen by this router
		assertThatThrownBy(() -> router.route(t)).isInstanceOf(UnknownTenantException.class);

		assertThat(router.stats().directoryReads()).isEqualTo(1);
		assertThat(router.stats().negativeHits()).isEqualTo(1);
	}

	@Test
	@DisplayName("an unknown tenant is forgotten after the negative TTL and then found in the directory")
	void unknownTenantIsForgottenAfterTtl() {
		String t = newTenant();
		Router router = router(directory, RouterSettings.defaults().withNegativeTtl(Duration.ofMillis(200)));
		assertThatThrownBy(() -> router.route(t)).isInstanceOf(UnknownTenantException.class);
		DirectoryEntry created = directory.create(t, "shard-1", "test");

		await("the negative entry expired").atMost(Duration.ofSeconds(30)).until(() -> {
			try {
				return router.route(t).equals(created);
			}
			catch (UnknownTenantException stillNegative) {
				return false;
			}
		});

		assertThat(router.stats().directoryReads()).isEqualTo(2);
		assertThat(router.cached(t)).contains(created);
	}

	@Test
	@DisplayName("invalidate drops the negative entry too, so a tenant created meanwhile is found at once")
	void invalidateDropsNegativeEntry() {
		String t = newTenant();
		Router router = router(directory, LONG_NEGATIVE_TTL);
		assertThatThrownBy(() -> router.route(t)).isInstanceOf(UnknownTenantException.class);
		DirectoryEntry created = directory.create(t, "shard-1", "test");

		router.invalidate(t);

		assertThat(router.route(t)).isEqualTo(created);
	}

	@Test
	@DisplayName("the background sync applies a change made by another writer")
	void backgroundSyncAppliesAnotherWritersChange() {
		String t = newTenant();
		String neighbour = newTenant();
		directory.create(t, "shard-1", "test");
		DirectoryEntry neighbourEntry = directory.create(neighbour, "shard-1", "test");
		Router router = router(directory, RouterSettings.defaults().withSyncInterval(Duration.ofMillis(50)));
		router.start();
		assertThat(router.route(t).shardId()).isEqualTo("shard-1");
		long readsBefore = router.stats().directoryReads();

		// Another writer: its own Directory instance on the directory database.
		Directory otherWriter = new Directory(fixture.directoryDataSource());
		DirectoryEntry moved = otherWriter.update(t, 1, "shard-2", TenantState.ACTIVE, null, "other-instance");

		await("the sync applied the move").atMost(Duration.ofSeconds(30))
			.until(() -> router.cached(t).equals(Optional.of(moved)) && router.stats().syncs() > 0);
		assertThat(router.version()).isGreaterThanOrEqualTo(moved.version());
		assertThat(router.route(t)).isEqualTo(moved);
		assertThat(router.route(neighbour)).isEqualTo(neighbourEntry);
		assertThat(router.stats().syncs()).isPositive();
		assertThat(router.stats().directoryReads()).isEqualTo(readsBefore);
		assertThat(router.isReady()).isTrue();
	}

	@Test
	@DisplayName("the cached version never goes backwards, even when the directory reports an older one")
	void cachedVersionNeverGoesBackwards() {
		// A directory database of its own, whose version row is rolled back (a restore of an old backup).
		try (ShardTenancyFixture own = ShardTenancyFixture.create("router-version", 0)) {
			Directory restored = own.directory();
			restored.create("a", "shard-1", "test");
			restored.create("b", "shard-1", "test");
			DirectoryEntry c = restored.create("c", "shard-1", "test");
			Router router = router(restored, RouterSettings.defaults());
			assertThat(router.loadSnapshot()).isEqualTo(3);

			ShardTenancyFixture.execute(own.directoryDataSource(),
					"UPDATE shard_directory_version SET version = 1 WHERE id = 1");
			ShardTenancyFixture.execute(own.directoryDataSource(),
					"UPDATE shard_directory_entry SET version = 1, epoch = 1, shard_id = 'shard-9' WHERE tenant_id = 'c'");

			assertThat(router.refresh()).isEqualTo(3);
			assertThat(router.loadSnapshot()).isEqualTo(3);
			assertThat(router.version()).isEqualTo(3);
			assertThat(router.cached("c")).contains(c);
		}
	}

	@Test
	@DisplayName("a slow load racing a sync never overwrites the newer entry the sync applied")
	void slowLoadNeverOverwritesNewerEntry() throws Exception {
		String t = newTenant();
		CountDownLatch readDone = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		// The real directory, whose single-entry read is held back after it read the (soon old) entry.
		Directory slow = new Directory(fixture.directoryDataSource()) {
			@Override
			public Optional<DirectoryEntry> find(String tenantId) {
				Optional<DirectoryEntry> read = super.find(tenantId);
				readDone.countDown();
				try {
					release.await();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				return read;
			}
		};
		Router router = router(slow, RouterSettings.defaults());
		router.refresh();
		directory.create(t, "shard-1", "test");
		CompletableFuture<DirectoryEntry> slowLoad = CompletableFuture.supplyAsync(() -> router.route(t), this.pool);
		assertThat(readDone.await(30, TimeUnit.SECONDS)).isTrue();

		DirectoryEntry moved = directory.update(t, 1, "shard-2", TenantState.ACTIVE, null, "mover");
		router.refresh();
		assertThat(router.cached(t)).contains(moved);
		release.countDown();

		assertThat(slowLoad.get(30, TimeUnit.SECONDS)).isEqualTo(moved);
		assertThat(router.cached(t)).contains(moved);
		assertThat(router.route(t)).isEqualTo(moved);
	}

	@Test
	@DisplayName("a read that began before an invalidation is not cached: the next lookup reads the directory again")
	void readInFlightAtInvalidationIsNotCached() throws Exception {
		String t = newTenant();
		DirectoryEntry before = directory.create(t, "shard-1", "test");
		CountDownLatch readDone = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		AtomicInteger finds = new AtomicInteger();
		// The real directory, whose first read of the tenant is held back after it read the (soon old) entry.
		Directory slow = new Directory(fixture.directoryDataSource()) {
			@Override
			public Optional<DirectoryEntry> find(String tenantId) {
				Optional<DirectoryEntry> read = super.find(tenantId);
				if (finds.incrementAndGet() == 1) {
					readDone.countDown();
					try {
						release.await();
					}
					catch (InterruptedException ex) {
						Thread.currentThread().interrupt();
					}
				}
				return read;
			}
		};
		Router router = router(slow, RouterSettings.defaults());
		CompletableFuture<DirectoryEntry> oldRead = CompletableFuture.supplyAsync(() -> router.route(t), this.pool);
		assertThat(readDone.await(30, TimeUnit.SECONDS)).isTrue();

		DirectoryEntry moved = directory.update(t, before.epoch(), "shard-2", TenantState.ACTIVE, null, "mover");
		router.invalidate(t); // what a fence rejection of the old route does
		release.countDown();

		assertThat(oldRead.get(30, TimeUnit.SECONDS)).isEqualTo(before);
		assertThat(router.cached(t)).isNotEqualTo(Optional.of(before));
		assertThat(router.route(t)).isEqualTo(moved);
	}

	@Test
	@DisplayName("apply of an older entry keeps the newer one; an equal or newer entry replaces it")
	void applyKeepsTheNewestEntry() {
		Router router = router(directory, RouterSettings.defaults());
		DirectoryEntry v5 = new DirectoryEntry("apply-t", "shard-2", TenantState.ACTIVE, null, 3, 5);
		DirectoryEntry v4 = new DirectoryEntry("apply-t", "shard-1", TenantState.FROZEN, "shard-2", 2, 4);
		DirectoryEntry v6 = new DirectoryEntry("apply-t", "shard-3", TenantState.ACTIVE, null, 4, 6);

		assertThat(router.apply(v5)).isEqualTo(v5);
		assertThat(router.apply(v4)).isEqualTo(v5);
		assertThat(router.cached("apply-t")).contains(v5);
		assertThat(router.apply(v6)).isEqualTo(v6);
		assertThat(router.cached("apply-t")).contains(v6);
	}

	@Test
	@DisplayName("a newer entry for a cached tenant, with a tenant id String of its own, is cached on the key's String")
	void aNewerEntrySharesTheCachedTenantIdInstance() {
		// Entries read from PostgreSQL, or parsed from a watcher's notification, carry a new String per read (H2's
		// driver happens to reuse its own, so the test builds the entries itself).
		Router router = router(directory, RouterSettings.defaults());
		DirectoryEntry first = new DirectoryEntry(new String("shared-t"), "shard-1", TenantState.ACTIVE, null, 1, 7);
		DirectoryEntry moved = new DirectoryEntry(new String("shared-t"), "shard-2", TenantState.ACTIVE, null, 2, 9);
		router.apply(first);

		DirectoryEntry applied = router.apply(moved);

		assertThat(applied).isEqualTo(moved);
		assertThat(router.cached("shared-t")).contains(moved);
		assertThat(router.cached("shared-t").orElseThrow().tenantId()).as("the cached entry's tenant id")
			.isSameAs(first.tenantId());
		assertThat(router.route(new String("shared-t")).tenantId()).isSameAs(first.tenantId());
	}

	@Test
	@DisplayName("an entry read again unchanged (a resync) leaves the cached entry in place")
	void anEntryReadAgainUnchangedLeavesTheCachedOne() {
		Router router = router(directory, RouterSettings.defaults());
		DirectoryEntry first = new DirectoryEntry(new String("resync-t"), "shard-1", TenantState.ACTIVE, null, 1, 7);
		DirectoryEntry again = new DirectoryEntry(new String("resync-t"), "shard-1", TenantState.ACTIVE, null, 1, 7);

		router.apply(first);

		assertThat(router.apply(again)).isSameAs(first);
		assertThat(router.cached("resync-t").orElseThrow()).isSameAs(first);
	}

	@Test
	@DisplayName("invalidate drops exactly one entry: the next lookup of that tenant reads the directory, others do not")
	void invalidateDropsExactlyOneEntry() {
		String t1 = newTenant();
		String t2 = newTenant();
		String t3 = newTenant();
		directory.create(t1, "shard-1", "test");
		directory.create(t2, "shard-1", "test");
		directory.create(t3, "shard-2", "test");
		Router router = router(directory, RouterSettings.defaults());
		router.loadSnapshot();
		long reads = router.stats().directoryReads();

		router.invalidate(t2);

		assertThat(router.cached(t1)).isPresent();
		assertThat(router.cached(t2)).isEmpty();
		assertThat(router.cached(t3)).isPresent();
		router.route(t1);
		router.route(t3);
		assertThat(router.stats().directoryReads()).isEqualTo(reads);
		router.route(t2);
		assertThat(router.stats().directoryReads()).isEqualTo(reads + 1);
		assertThat(router.stats().invalidations()).isEqualTo(1);
	}

	@Test
	@DisplayName("a DELETED tenant is refused with TenantUnavailableException")
	void deletedTenantIsRefused() {
		String t = newTenant();
		directory.create(t, "shard-1", "test");
		directory.update(t, 1, "shard-1", TenantState.DELETED, null, "test");
		Router router = router(directory, RouterSettings.defaults());

		assertThatThrownBy(() -> router.route(t)).isInstanceOf(TenantUnavailableException.class)
			.hasMessageContaining(t)
			.hasMessageContaining("DELETED");
	}

	@Test
	@DisplayName("an id breaking the tenant id rule is refused on every path, even when a directory row carries it")
	void invalidTenantIdIsNeverCached() throws Exception {
		String invalid = "bad tenant " + tenants.incrementAndGet(); // spaces break the rule
		try (java.sql.Connection c = fixture.directoryDataSource().getConnection();
				java.sql.PreparedStatement ps = c.prepareStatement("INSERT INTO shard_directory_entry (tenant_id, "
						+ "shard_id, state, target_shard_id, epoch, version, updated_at, updated_by) "
						+ "VALUES (?, 'shard-1', 'ACTIVE', NULL, 1, 1, CURRENT_TIMESTAMP, 'test')")) {
			ps.setString(1, invalid);
			ps.executeUpdate();
		}
		String valid = newTenant();
		directory.create(valid, "shard-1", "test");
		Router router = router(directory, RouterSettings.defaults());

		router.loadSnapshot();
		router.refresh();

		assertThat(router.cached(invalid)).isEmpty();
		assertThat(router.cached(valid)).isPresent();
		assertThatThrownBy(() -> router.route(invalid)).isInstanceOf(InvalidTenantIdException.class);
		assertThatThrownBy(() -> router.route(null)).isInstanceOf(InvalidTenantIdException.class);
		assertThatThrownBy(() -> router.apply(new DirectoryEntry(invalid, "shard-1", TenantState.ACTIVE, null, 1, 1)))
			.isInstanceOf(InvalidTenantIdException.class);
		assertThat(router.cached(invalid)).isEmpty();
		assertThat(router.stats().directoryReads()).isZero();
	}

	@Test
	@DisplayName("a snapshot larger than the applier's batches caches every entry, and the version after all of them")
	void largeSnapshotCachesEveryEntry() throws Exception {
		String prefix = "bulk-" + tenants.incrementAndGet() + "-";
		int count = SnapshotApplier.BATCH * 2 + 11;
		try (java.sql.Connection c = fixture.directoryDataSource().getConnection();
				java.sql.PreparedStatement ps = c.prepareStatement("INSERT INTO shard_directory_entry (tenant_id, "
						+ "shard_id, state, target_shard_id, epoch, version, updated_at, updated_by) "
						+ "SELECT ? || X, 'shard-1', 'ACTIVE', NULL, 1, 1, CURRENT_TIMESTAMP, 'test' "
						+ "FROM SYSTEM_RANGE(1, ?)")) {
			ps.setString(1, prefix);
			ps.setInt(2, count);
			ps.executeUpdate();
		}
		Router router = router(directory, RouterSettings.defaults());

		long version = router.loadSnapshot();

		assertThat(version).isEqualTo(router.version()).isPositive();
		for (int i = 1; i <= count; i++) {
			assertThat(router.cached(prefix + i)).as("tenant %s%d", prefix, i).isPresent();
		}
		assertThat(router.stats().directoryReads()).isZero();
	}

}
