package io.github.shardtenancy.internal.lifecycle;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;

import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.PlacementException;
import io.github.shardtenancy.TenantAlreadyExistsException;
import io.github.shardtenancy.UnknownTenantException;
import io.github.shardtenancy.internal.directory.Directory;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.spi.LeastLoadedPlacement;
import io.github.shardtenancy.PlacementRequest;
import io.github.shardtenancy.spi.RegionAwarePlacement;
import io.github.shardtenancy.RouterSettings;
import io.github.shardtenancy.internal.routing.Router;
import io.github.shardtenancy.testing.ShardTenancyFixture;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@DisplayName("Creating tenants with a placement policy")
class PlacementTest {

	@Nested
	@DisplayName("default policy: least loaded by tenant count")
	class LeastLoaded {

		@Test
		void thirtyTenantsOnThreeShardsEndUpTenOnEach() {
			try (LifecycleFixture f = LifecycleFixture.create("placement-30", 3)) {
				for (int i = 0; i < 30; i++) {
					f.lifecycle.create("tenant-" + i);
				}
				Map<String, Long> perShard = owners(f.core.directory(), 30);
				assertThat(perShard).containsOnly(Map.entry("shard-1", 10L), Map.entry("shard-2", 10L),
						Map.entry("shard-3", 10L));
			}
		}

		@Test
		void thirtyTenantsCreatedConcurrentlyByTwoInstancesAlsoEndUpTenOnEach() throws Exception {
			try (LifecycleFixture f = LifecycleFixture.create("placement-30-concurrent", 3);
					HikariDataSource otherPool = f.newDirectoryPool()) {
				Directory otherDirectory = new Directory(otherPool);
				Router otherRouter = new Router(otherDirectory, RouterSettings.defaults());
				TenantLifecycle other = f.lifecycle(otherDirectory, otherRouter, f.core.topology(),
						new LeastLoadedPlacement());
				ExecutorService pool = Executors.newFixedThreadPool(2);
				try {
					List<Future<?>> done = new ArrayList<>();
					for (int i = 0; i < 30; i++) {
						TenantLifecycle instance = i % 2 == 0 ? f.lifecycle : other;
						String tenant = "tenant-" + i;
						done.add(pool.submit(() -> instance.create(tenant)));
					}
					for (Future<?> future : done) {
						future.get(30, TimeUnit.SECONDS);
					}
				}
				finally {
					pool.shutdownNow();
				}
				assertThat(owners(f.core.directory(), 30).values()).containsOnly(10L);
			}
		}

		@Test
		void aTenantCreatedAMomentAgoIsRoutableAtOnceHereAndAfterOneRefreshElsewhere() {
			try (LifecycleFixture f = LifecycleFixture.create("placement-visible", 2)) {
				Router other = f.core.newRouter(RouterSettings.defaults());
				other.loadSnapshot();
				// both instances looked the tenant up before it existed: each caches the miss
				assertThatThrownBy(() -> f.core.router().route("newcomer")).isInstanceOf(UnknownTenantException.class);
				assertThatThrownBy(() -> other.route("newcomer")).isInstanceOf(UnknownTenantException.class);

				DirectoryEntry created = f.lifecycle.create("newcomer");

				assertThat(f.core.router().route("newcomer")).isEqualTo(created);
				assertThatThrownBy(() -> other.route("newcomer")).as("negative entry still cached elsewhere")
					.isInstanceOf(UnknownTenantException.class);
				other.refresh(); // what one notification (or one sync) does
				assertThat(other.route("newcomer")).isEqualTo(created);
				f.insertNote("newcomer", "first write");
				assertThat(f.rows(created.shardId(), "newcomer")).isEqualTo(1);
			}
		}

		@Test
		void creatingAnExistingTenantRaisesATypedErrorAndChangesNothing() {
			try (LifecycleFixture f = LifecycleFixture.create("placement-exists", 2)) {
				DirectoryEntry first = f.lifecycle.create("acme");
				long version = f.core.directory().currentVersion();
				assertThatThrownBy(() -> f.lifecycle.create("acme"))
					.isInstanceOf(TenantAlreadyExistsException.class)
					.hasMessageContaining("'acme'")
					.hasMessageContaining(first.shardId());
				assertThat(f.core.directory().find("acme")).contains(first);
				assertThat(f.core.directory().history("acme")).hasSize(1);
				assertThat(f.core.directory().currentVersion()).isEqualTo(version);
			}
		}

		@Test
		void twoInstancesCreatingTheSameTenantAtOnceLeaveOneEntryAndOneTypedError() throws Exception {
			try (LifecycleFixture f = LifecycleFixture.create("placement-race", 3);
					HikariDataSource otherPool = f.newDirectoryPool()) {
				Directory otherDirectory = new Directory(otherPool);
				Router otherRouter = new Router(otherDirectory, RouterSettings.defaults());
				TenantLifecycle other = f.lifecycle(otherDirectory, otherRouter, f.core.topology(),
						new LeastLoadedPlacement());
				for (int round = 0; round < 20; round++) {
					String tenant = "contested-" + round;
					CountDownLatch start = new CountDownLatch(1);
					ExecutorService pool = Executors.newFixedThreadPool(2);
					try {
						Future<Object> a = pool.submit(() -> attempt(start, () -> f.lifecycle.create(tenant)));
						Future<Object> b = pool.submit(() -> attempt(start, () -> other.create(tenant)));
						start.countDown();
						List<Object> outcomes = List.of(a.get(30, TimeUnit.SECONDS), b.get(30, TimeUnit.SECONDS));
						assertThat(outcomes).filteredOn(DirectoryEntry.class::isInstance).hasSize(1);
						assertThat(outcomes).filteredOn(TenantAlreadyExistsException.class::isInstance).hasSize(1);
					}
					finally {
						pool.shutdownNow();
					}
					assertThat(f.core.directory().history(tenant)).hasSize(1);
					assertThat(ShardTenancyFixture.queryLong(f.core.directoryDataSource(),
							"SELECT COUNT(*) FROM shard_directory_entry WHERE tenant_id = ?", tenant)).isEqualTo(1);
				}
			}
		}

		private static Object attempt(CountDownLatch start, java.util.function.Supplier<DirectoryEntry> create)
				throws InterruptedException {
			start.await();
			try {
				return create.get();
			}
			catch (TenantAlreadyExistsException ex) {
				return ex;
			}
		}

	}

	@Nested
	@DisplayName("region-aware and explicit placement")
	class Regions {

		@Test
		void regionPolicyPlacesEachTenantOnAShardOfItsRegion() {
			try (LifecycleFixture f = new LifecycleFixture("placement-region", 3,
					Map.of("shard-1", "eu", "shard-2", "us", "shard-3", "eu"), new RegionAwarePlacement(null))) {
				for (int i = 0; i < 6; i++) {
					f.lifecycle.create("eu-" + i, PlacementRequest.inRegion("eu"));
				}
				for (int i = 0; i < 3; i++) {
					f.lifecycle.create("us-" + i, PlacementRequest.inRegion("us"));
				}
				Map<String, String> owner = entries(f.core.directory()).stream()
					.collect(Collectors.toMap(DirectoryEntry::tenantId, DirectoryEntry::shardId));
				assertThat(owner).hasSize(9);
				owner.forEach((tenant, shard) -> {
					if (tenant.startsWith("eu-")) {
						assertThat(shard).as(tenant).isIn("shard-1", "shard-3");
					}
					else {
						assertThat(shard).as(tenant).isEqualTo("shard-2");
					}
				});
				// least loaded within the region
				assertThat(owners(f.core.directory(), 9)).containsOnly(Map.entry("shard-1", 3L),
						Map.entry("shard-2", 3L), Map.entry("shard-3", 3L));
				assertThatThrownBy(() -> f.lifecycle.create("apac-1", PlacementRequest.inRegion("apac")))
					.isInstanceOf(PlacementException.class)
					.hasMessageContaining("apac");
				assertThatThrownBy(() -> f.lifecycle.create("nowhere")).isInstanceOf(PlacementException.class);
				assertThat(f.core.directory().find("apac-1")).isEmpty();
			}
		}

		@Test
		void explicitPlacementPutsTheTenantOnTheNamedShardOnlyIfItIsRegistered() {
			try (LifecycleFixture f = LifecycleFixture.create("placement-explicit", 3)) {
				assertThat(f.lifecycle.create("a", PlacementRequest.onShard("shard-3")).shardId()).isEqualTo("shard-3");
				assertThat(f.lifecycle.create("b", PlacementRequest.onShard("shard-3")).shardId()).isEqualTo("shard-3");
				assertThatThrownBy(() -> f.lifecycle.create("c", PlacementRequest.onShard("shard-9")))
					.isInstanceOf(PlacementException.class)
					.hasMessageContaining("shard-9");
				assertThat(f.core.directory().find("c")).isEmpty();
			}
		}

	}

	static List<DirectoryEntry> entries(Directory directory) {
		List<DirectoryEntry> all = new ArrayList<>();
		directory.snapshot(all::add);
		return all;
	}

	static Map<String, Long> owners(Directory directory, int expectedTenants) {
		List<DirectoryEntry> all = entries(directory);
		assertThat(all).hasSize(expectedTenants);
		return all.stream().collect(Collectors.groupingBy(DirectoryEntry::shardId, Collectors.counting()));
	}

	static <T> Function<T, T> identity() {
		return t -> t;
	}

}
