package io.github.shardtenancy.it.lifecycle;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.PlacementException;
import io.github.shardtenancy.ShardStateException;
import io.github.shardtenancy.TenantAlreadyExistsException;
import io.github.shardtenancy.UnknownTenantException;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.DirectoryHistoryRecord;
import io.github.shardtenancy.PlacementRequest;
import io.github.shardtenancy.ReconciliationReport;
import io.github.shardtenancy.RouterSettings;
import io.github.shardtenancy.ShardRecord;
import io.github.shardtenancy.ShardState;
import io.github.shardtenancy.SlotMoveResult;
import io.github.shardtenancy.TenantState;
import io.github.shardtenancy.internal.directory.Directory;
import io.github.shardtenancy.internal.hibernate.ShardMultiTenantConnectionProvider;
import io.github.shardtenancy.internal.lifecycle.DirectoryHistory;
import io.github.shardtenancy.internal.lifecycle.TenantLifecycle;
import io.github.shardtenancy.PlacementRequest;
import io.github.shardtenancy.spi.LeastLoadedPlacement;
import io.github.shardtenancy.spi.RegionAwarePlacement;
import io.github.shardtenancy.internal.placement.SlotMap;
import io.github.shardtenancy.spi.SlotPlacement;
import io.github.shardtenancy.internal.reconcile.Reconciler;
import io.github.shardtenancy.internal.routing.Router;
import io.github.shardtenancy.internal.topology.ShardRegistry;
import io.github.shardtenancy.internal.topology.Topology;
import io.github.shardtenancy.testing.pg.PostgresCluster;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.groups.Tuple.tuple;

@DisplayName("PostgreSQL: tenant lifecycle and placement")
class PostgresLifecycleTest {

	static PostgresCluster cluster;

	@BeforeAll
	static void servers() {
		cluster = PostgresCluster.shared();
	}

	@Test
	void defaultPlacementSpreadsThirtyTenantsTenTenTenAndConcurrentCreationLeavesOneEntryAndOneTypedError()
			throws Exception {
		try (PostgresLifecycleFixture pg = new PostgresLifecycleFixture(cluster,
				Map.of(), new LeastLoadedPlacement())) {
			for (int i = 0; i < 30; i++) {
				pg.lifecycle.create("tenant-" + i);
			}
			assertThat(owners(pg.directory).values()).containsExactly(10L, 10L, 10L);

			Router otherRouter = new Router(new Directory(pg.newDirectoryPool("other")),
					RouterSettings.defaults());
			otherRouter.loadSnapshot();
			TenantLifecycle other = pg.lifecycle(otherRouter.directory(), otherRouter, new LeastLoadedPlacement());
			assertThatThrownBy(() -> otherRouter.route("contested-0")).isInstanceOf(UnknownTenantException.class);
			for (int round = 0; round < 10; round++) {
				String tenant = "contested-" + round;
				CountDownLatch start = new CountDownLatch(1);
				ExecutorService threads = Executors.newFixedThreadPool(2);
				try {
					Future<Object> a = threads.submit(() -> attempt(start, pg.lifecycle, tenant));
					Future<Object> b = threads.submit(() -> attempt(start, other, tenant));
					start.countDown();
					List<Object> outcomes = List.of(a.get(60, TimeUnit.SECONDS), b.get(60, TimeUnit.SECONDS));
					assertThat(outcomes).filteredOn(DirectoryEntry.class::isInstance).hasSize(1);
					assertThat(outcomes).filteredOn(TenantAlreadyExistsException.class::isInstance).hasSize(1);
				}
				finally {
					threads.shutdownNow();
				}
				assertThat(pg.directory.history(tenant)).hasSize(1);
			}
			// routable at once where it was created, and elsewhere after one notification's refresh
			DirectoryEntry entry = pg.directory.find("contested-0").orElseThrow();
			otherRouter.refresh();
			assertThat(otherRouter.route("contested-0")).isEqualTo(entry);
			assertThat(pg.router.route("contested-0").shardId()).isEqualTo(entry.shardId());
			pg.write("contested-0");
			assertThat(pg.rows(entry.shardId(), "contested-0")).isEqualTo(1);
			otherRouter.close();
		}
	}

	@Test
	void theRegionPolicyPlacesByRegion() {
		try (PostgresLifecycleFixture pg = new PostgresLifecycleFixture(cluster,
				Map.of("shard-1", "eu", "shard-2", "us", "shard-3", "eu"),
				new RegionAwarePlacement(null))) {
			for (int i = 0; i < 4; i++) {
				assertThat(pg.lifecycle.create("eu-" + i, PlacementRequest.inRegion("eu")).shardId())
					.isIn("shard-1", "shard-3");
				assertThat(pg.lifecycle.create("us-" + i, PlacementRequest.inRegion("us")).shardId())
					.isEqualTo("shard-2");
			}
			assertThat(owners(pg.directory)).containsOnly(Map.entry("shard-1", 2L), Map.entry("shard-2", 4L),
					Map.entry("shard-3", 2L));
			assertThatThrownBy(() -> pg.lifecycle.create("apac-1", PlacementRequest.inRegion("apac")))
				.isInstanceOf(PlacementException.class);
		}
	}

	@Test
	void tenantsRouteBySlotAnOverrideWinsAndMovingASlotMovesExactlyItsTenantsWithTheirData() {
		try (PostgresLifecycleFixture pg = new PostgresLifecycleFixture(cluster, Map.of(), new SlotPlacement())) {
			pg.slots.initialize(SlotMap.DEFAULT_SLOT_COUNT, PostgresCluster.SHARD_IDS, "ops@pg");
			List<String> sameSlot = sameSlot(3);
			int slot = SlotMap.slotOf(sameSlot.get(0), 4096);
			String source = pg.slots.shardOfSlot(slot);
			String target = source.equals("shard-3") ? "shard-1" : "shard-3";
			List<String> others = new ArrayList<>();
			for (int i = 0; others.size() < 5; i++) {
				if (SlotMap.slotOf("other-" + i, 4096) != slot) {
					others.add("other-" + i);
				}
			}
			Map<String, String> placed = new HashMap<>();
			for (String tenant : concat(sameSlot, others)) {
				String shard = pg.lifecycle.create(tenant).shardId();
				assertThat(shard).as(tenant).isEqualTo(pg.slots.shardOfSlot(SlotMap.slotOf(tenant, 4096)));
				pg.write(tenant);
				pg.write(tenant);
				assertThat(pg.rows(shard, tenant)).isEqualTo(2);
				placed.put(tenant, shard);
			}
			String whale = "whale-" + slot;
			String whaleSlotShard = pg.slots.shardOfSlot(SlotMap.slotOf(whale, 4096));
			String whaleShard = whaleSlotShard.equals("shard-2") ? "shard-1" : "shard-2";
			pg.lifecycle.override(whale, whaleShard);
			assertThat(pg.lifecycle.create(whale).shardId()).as("the override wins over the slot").isEqualTo(whaleShard);
			pg.write(whale);
			assertThat(pg.rows(whaleShard, whale)).isEqualTo(1);

			String pinned = sameSlot.get(2);
			pg.lifecycle.pin(pinned);
			SlotMoveResult result = pg.lifecycle.moveSlot(slot, target);

			assertThat(result.moved()).containsExactlyInAnyOrder(sameSlot.get(0), sameSlot.get(1));
			assertThat(result.pinned()).containsExactly(pinned);
			for (String moved : result.moved()) {
				assertThat(pg.directory.find(moved).orElseThrow().shardId()).isEqualTo(target);
				assertThat(pg.rows(target, moved)).isEqualTo(2);
				assertThat(pg.rows(source, moved)).isZero();
				pg.write(moved);
				assertThat(pg.rows(target, moved)).isEqualTo(3);
			}
			assertThat(pg.rows(source, pinned)).isEqualTo(2);
			for (String other : others) {
				assertThat(pg.directory.find(other).orElseThrow().shardId()).isEqualTo(placed.get(other));
				assertThat(pg.rows(placed.get(other), other)).isEqualTo(2);
			}
		}
	}

	@Test
	void aShardAddedAtRuntimeIsMigratedFirstRetiringAnOwnerIsRefusedAndAStaleInstanceCompletesOnTheNewOwner() {
		try (PostgresLifecycleFixture pg = new PostgresLifecycleFixture(cluster,
				Map.of(), new LeastLoadedPlacement())) {
			for (int i = 0; i < 3; i++) {
				pg.lifecycle.create("existing-" + i);
			}
			List<String> stateDuringMigration = new ArrayList<>();
			ShardRegistry registry = new ShardRegistry(pg.directory, pg.topology, (shardId, dataSource, dialect) -> {
				stateDuringMigration.add(pg.registry.find(shardId).map(r -> r.state().name()).orElse("absent"));
				PostgresLifecycleFixture.MIGRATOR.migrate(shardId, dataSource, dialect);
			}, s -> {
				HikariConfig c = new HikariConfig();
				c.setJdbcUrl(s.jdbcUrl());
				c.setUsername(s.username());
				c.setPassword("postgres");
				return new com.zaxxer.hikari.HikariDataSource(c);
			}, "ops@pg");
			registry.register("shard-4", null, pg.newShardDatabase("shard-3", "shard4"));
			assertThat(stateDuringMigration).containsExactly("absent");
			DirectoryEntry first = pg.lifecycle.create("first-on-shard-4");
			assertThat(first.shardId()).isEqualTo("shard-4");
			pg.write("first-on-shard-4");
			assertThat(pg.rows("shard-4", "first-on-shard-4")).isEqualTo(1);

			assertThatThrownBy(() -> pg.registry.retire("shard-4")).isInstanceOf(ShardStateException.class)
				.hasMessageContaining("1 tenant(s)");

			// instance B: own pools and router; it will miss every notification
			try (Topology topologyB = new Topology()) {
				for (String shardId : List.of("shard-1", "shard-2", "shard-3", "shard-4")) {
					HikariDataSource pool = (HikariDataSource) pg.topology.shard(shardId).dataSource();
					HikariConfig config = new HikariConfig();
					config.setJdbcUrl(pool.getJdbcUrl());
					config.setUsername(pool.getUsername());
					config.setPassword(pool.getPassword());
					config.setMaximumPoolSize(2);
					topologyB.addShard(shardId, config);
				}
				ShardRegistry registryB = new ShardRegistry(pg.directory, topologyB, PostgresLifecycleFixture.MIGRATOR,
						s -> { throw new AssertionError("not expected"); }, "b@pg");
				Router routerB = new Router(pg.directory, RouterSettings.defaults());
				routerB.loadSnapshot();
				ShardMultiTenantConnectionProvider providerB = new ShardMultiTenantConnectionProvider(routerB,
						topologyB);
				PostgresLifecycleFixture.write(providerB, routerB, "first-on-shard-4");

				pg.lifecycle.move("first-on-shard-4", "shard-1");
				ShardRecord retired = pg.registry.retire("shard-4");
				assertThat(retired.state()).isEqualTo(ShardState.RETIRED);
				assertThat(pg.topology.contains("shard-4")).isFalse();
				assertThat(routerB.cached("first-on-shard-4").orElseThrow().shardId()).isEqualTo("shard-4");

				registryB.sync(); // B dropped the retired shard's pool, its router is still stale
				assertThat(topologyB.contains("shard-4")).isFalse();
				PostgresLifecycleFixture.write(providerB, routerB, "first-on-shard-4");

				assertThat(routerB.route("first-on-shard-4").shardId()).isEqualTo("shard-1");
				assertThat(pg.rows("shard-1", "first-on-shard-4")).isEqualTo(3);
				routerB.close();
			}
		}
	}

	@Test
	void reconciliationFindsMisplacedAndMissingRowsAndHistoryAnswersThePastOwnerAcrossTwoMoves() throws Exception {
		try (PostgresLifecycleFixture pg = new PostgresLifecycleFixture(cluster,
				Map.of(), new LeastLoadedPlacement())) {
			pg.lifecycle.create("acme", PlacementRequest.onShard("shard-1"));
			pg.lifecycle.create("globex", PlacementRequest.onShard("shard-2"));
			pg.write("acme");
			Reconciler reconciler = new Reconciler(pg.directory, pg.topology, List.of(PostgresCluster.NOTES));
			Topology.Shard shard3 = pg.topology.shard("shard-3");
			try (java.sql.Connection c = shard3.dataSource().getConnection()) {
				c.setAutoCommit(false);
				shard3.dialect().beginMover(c, "acme");
				c.createStatement().execute("INSERT INTO pg_note (id, tenant_id, text) VALUES ('"
						+ java.util.UUID.randomUUID() + "', 'acme', 'planted')");
				c.commit();
				c.setAutoCommit(true);
			}

			ReconciliationReport report = reconciler.run();

			assertThat(report.misplaced()).extracting(ReconciliationReport.MisplacedRows::shardId,
					ReconciliationReport.MisplacedRows::tenantId, ReconciliationReport.MisplacedRows::rows,
					ReconciliationReport.MisplacedRows::ownerShardId)
				.containsExactly(tuple("shard-3", "acme", 1L, "shard-1"));
			assertThat(report.missing()).extracting(ReconciliationReport.MissingRows::tenantId).containsExactly("globex");
			assertThat(reconciler.lastReport()).containsSame(report);

			// history across two moves (the planted row is removed first: the mover copies into shard-3 later)
			try (java.sql.Connection c = shard3.dataSource().getConnection()) {
				c.setAutoCommit(false);
				shard3.dialect().beginMover(c, "acme");
				c.createStatement().execute("DELETE FROM pg_note WHERE tenant_id = 'acme'");
				c.commit();
				c.setAutoCommit(true);
			}
			pg.lifecycle.move("acme", "shard-2");
			pg.lifecycle.move("acme", "shard-3");
			List<DirectoryHistoryRecord> records = pg.directory.history("acme");
			assertThat(records).extracting(DirectoryHistoryRecord::toShardId, DirectoryHistoryRecord::toState)
				.containsExactly(tuple("shard-1", TenantState.ACTIVE), tuple("shard-1", TenantState.FROZEN),
						tuple("shard-2", TenantState.ACTIVE), tuple("shard-2", TenantState.FROZEN),
						tuple("shard-3", TenantState.ACTIVE));
			DirectoryHistory history = new DirectoryHistory(pg.directory);
			Instant created = records.get(0).changedAt();
			Instant firstFlip = records.get(2).changedAt();
			Instant secondFlip = records.get(4).changedAt();
			assertThat(created).isBefore(firstFlip);
			assertThat(firstFlip).isBefore(secondFlip);
			assertThat(history.ownerAt("acme", created.minusMillis(1))).isEmpty();
			assertThat(history.ownerAt("acme", created).orElseThrow().shardId()).isEqualTo("shard-1");
			assertThat(history.ownerAt("acme", firstFlip).orElseThrow().shardId()).isEqualTo("shard-2");
			assertThat(history.ownerAt("acme", secondFlip.minusNanos(1000)).orElseThrow().shardId())
				.isEqualTo("shard-2");
			assertThat(history.ownerAt("acme", secondFlip).orElseThrow().shardId()).isEqualTo("shard-3");
			assertThat(history.ownerAt("acme", secondFlip).orElseThrow().changedBy()).isEqualTo("mover@pg");
			assertThat(pg.rows("shard-3", "acme")).isEqualTo(1);
		}
	}

	private static Object attempt(CountDownLatch start, TenantLifecycle lifecycle, String tenant)
			throws InterruptedException {
		start.await();
		try {
			return lifecycle.create(tenant);
		}
		catch (TenantAlreadyExistsException ex) {
			return ex;
		}
	}

	private static Map<String, Long> owners(Directory directory) {
		List<DirectoryEntry> all = new ArrayList<>();
		directory.snapshot(all::add);
		return all.stream().collect(Collectors.groupingBy(DirectoryEntry::shardId, java.util.TreeMap::new,
				Collectors.counting()));
	}

	private static List<String> sameSlot(int count) {
		Map<Integer, List<String>> bySlot = new HashMap<>();
		for (int i = 0;; i++) {
			String tenant = "slotmate-" + i;
			List<String> mates = bySlot.computeIfAbsent(SlotMap.slotOf(tenant, 4096), s -> new ArrayList<>());
			mates.add(tenant);
			if (mates.size() == count) {
				return mates;
			}
		}
	}

	private static List<String> concat(List<String> a, List<String> b) {
		List<String> all = new ArrayList<>(a);
		all.addAll(b);
		return all;
	}

}
