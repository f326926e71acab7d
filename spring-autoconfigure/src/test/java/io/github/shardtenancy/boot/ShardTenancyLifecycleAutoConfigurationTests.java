package io.github.shardtenancy.boot;

import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.UUID;

import com.zaxxer.hikari.HikariConfig;
import io.github.shardtenancy.DirectoryHistoryRecord;
import io.github.shardtenancy.PlacementRequest;
import io.github.shardtenancy.ShardRecord;
import io.github.shardtenancy.ShardState;
import io.github.shardtenancy.TenantState;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.ShardTopology;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.TenantMover;
import io.github.shardtenancy.internal.Internals;
import io.github.shardtenancy.internal.placement.SlotMap;
import io.github.shardtenancy.spi.FenceDialect;
import io.github.shardtenancy.spi.LeastLoadedPlacement;
import io.github.shardtenancy.spi.PlacementPolicy;
import io.github.shardtenancy.spi.RegionAwarePlacement;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** The tenant lifecycle beans of the auto-configuration, in real (small) Spring contexts on H2. */
@DisplayName("Tenant lifecycle auto-configuration")
class ShardTenancyLifecycleAutoConfigurationTests {

	private static String h2(String name) {
		return "jdbc:h2:mem:" + name + "-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000";
	}

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ShardTenancyAutoConfiguration.class))
		.withPropertyValues("shard-tenancy.directory.url=" + h2("directory"),
				"shard-tenancy.shards.shard-1.url=" + h2("shard-1"), "shard-tenancy.shards.shard-1.region=eu",
				"shard-tenancy.shards.shard-2.url=" + h2("shard-2"), "shard-tenancy.shards.shard-2.region=us",
				"shard-tenancy.sync.interval=1h", "shard-tenancy.liquibase.shard-changelogs=classpath:db/test-shard.xml",
				"shard-tenancy.tenant-tables=note:tenant_id", "shard-tenancy.actor=boot@test");

	@Test
	void registersTheConfiguredShardsAndPlacesNewTenantsOnTheLeastLoaded() {
		this.runner.run(context -> {
			assertThat(context).hasNotFailed();
			assertThat(context).hasSingleBean(ShardTenancy.class)
				.hasSingleBean(TenantAdmin.class)
				.hasSingleBean(ShardTenancyLifecycleScheduler.class);
			assertThat(context.getBean(PlacementPolicy.class)).isInstanceOf(LeastLoadedPlacement.class);
			assertThat(context.getBean(TenantAdmin.class).shards())
				.extracting(ShardRecord::shardId, ShardRecord::region, ShardRecord::state)
				.containsExactly(org.assertj.core.groups.Tuple.tuple("shard-1", "eu", ShardState.ACTIVE),
						org.assertj.core.groups.Tuple.tuple("shard-2", "us", ShardState.ACTIVE));
			TenantAdmin lifecycle = context.getBean(TenantAdmin.class);
			assertThat(lifecycle.create("a").shardId()).isEqualTo("shard-1");
			assertThat(lifecycle.create("b").shardId()).isEqualTo("shard-2");
			assertThat(lifecycle.ownerAt("a", java.time.Instant.now().plusSeconds(60))
				.orElseThrow().changedBy()).isEqualTo("boot@test");
			assertThat(context.getBean(ShardTenancyLifecycleScheduler.class).isReconciliationScheduled()).isFalse();
			assertThat(context.getBean(ShardTenancy.class).lastReconciliation()).as("no scheduled run by default")
				.isEmpty();
		});
	}

	@Test
	void theRegionPolicyPlacesByTheShardsConfiguredRegion() {
		this.runner.withPropertyValues("shard-tenancy.lifecycle.placement=region",
				"shard-tenancy.lifecycle.default-region=us")
			.run(context -> {
				assertThat(context.getBean(PlacementPolicy.class)).isInstanceOf(RegionAwarePlacement.class);
				TenantAdmin lifecycle = context.getBean(TenantAdmin.class);
				assertThat(lifecycle.create("eu-1", PlacementRequest.inRegion("eu")).shardId()).isEqualTo("shard-1");
				assertThat(lifecycle.create("eu-2", PlacementRequest.inRegion("eu")).shardId()).isEqualTo("shard-1");
				assertThat(lifecycle.create("us-by-default").shardId()).isEqualTo("shard-2");
			});
	}

	@Test
	void aShardRegisteredAtRuntimeIsMigratedWithTheApplicationsChangelogsAndGuardedByTheFence() {
		this.runner.run(context -> {
			TenantAdmin lifecycle = context.getBean(TenantAdmin.class);
			lifecycle.create("on-1");
			lifecycle.create("on-2");
			HikariConfig config = new HikariConfig();
			config.setJdbcUrl(h2("shard-3"));
			lifecycle.registerShard("shard-3", "eu", config);
			try (Connection c = context.getBean(ShardTopology.class).dataSource("shard-3").getConnection();
					ResultSet rs = c.createStatement().executeQuery("SELECT COUNT(DISTINCT TRIGGER_NAME) FROM "
							+ "INFORMATION_SCHEMA.TRIGGERS WHERE TRIGGER_NAME = 'SHARD_FENCE_NOTE'")) {
				rs.next();
				assertThat(rs.getInt(1)).isEqualTo(1);
			}
			assertThat(lifecycle.create("first").shardId()).as("the new, empty shard is the least loaded")
				.isEqualTo("shard-3");
		});
	}

	@Test
	void scheduledReconciliationRunsWhenEnabledAndExposesItsLastReport() {
		this.runner.withPropertyValues("shard-tenancy.reconciliation.enabled=true",
				"shard-tenancy.reconciliation.interval=100ms")
			.run(context -> {
				context.getBean(TenantAdmin.class).create("without-rows");
				ShardTenancy reconciler = context.getBean(ShardTenancy.class);
				await("a scheduled run reports the missing rows").atMost(Duration.ofSeconds(30))
					.until(() -> reconciler.lastReconciliation().map(r -> !r.missing().isEmpty()).orElse(false));
				assertThat(reconciler.lastReconciliation().orElseThrow().missing())
					.extracting(io.github.shardtenancy.ReconciliationReport.MissingRows::tenantId)
					.containsExactly("without-rows");
			});
	}

	@Test
	@DisplayName("a slot move goes through the online mover: one move-log row per moved tenant, DONE, and the rows arrive")
	void aSlotMoveGoesThroughTheMoverOnline() {
		this.runner.withPropertyValues("shard-tenancy.lifecycle.placement=slots").run(context -> {
			assertThat(context.getBean(MoveSettings.class).capture()).isTrue();
			ShardTenancy tenancy = context.getBean(ShardTenancy.class);
			Internals.slots(tenancy).initialize(2, java.util.List.of("shard-1"), "test");
			TenantAdmin lifecycle = context.getBean(TenantAdmin.class);
			ShardTopology topology = context.getBean(ShardTopology.class);
			java.util.List<String> tenants = java.util.List.of("t-0", "t-1", "t-2", "t-3", "t-4", "t-5");
			for (String tenant : tenants) {
				assertThat(lifecycle.create(tenant).shardId()).isEqualTo("shard-1");
				insertNote(tenancy, tenant);
			}
			int slot = SlotMap.slotOf("t-0", 2);
			java.util.List<String> inSlot = tenants.stream().filter(t -> SlotMap.slotOf(t, 2) == slot).toList();

			io.github.shardtenancy.SlotMoveResult result = lifecycle.moveSlot(slot, "shard-2");

			assertThat(result.moved()).containsExactlyInAnyOrderElementsOf(inSlot);
			for (String tenant : tenants) {
				boolean moved = inSlot.contains(tenant);
				assertThat(lifecycle.find(tenant).orElseThrow().shardId()).as(tenant)
					.isEqualTo(moved ? "shard-2" : "shard-1");
				assertThat(count(tenancy.directoryDataSource(), "SELECT COUNT(*) FROM shard_move WHERE tenant_id = ? "
						+ "AND target_shard_id = 'shard-2' AND step = 'DONE'", tenant)).as(tenant).isEqualTo(moved ? 1 : 0);
				assertThat(count(topology.dataSource("shard-2"), "SELECT COUNT(*) FROM note WHERE tenant_id = ?",
						tenant)).as(tenant).isEqualTo(moved ? 1 : 0);
				assertThat(count(topology.dataSource("shard-1"), "SELECT COUNT(*) FROM note WHERE tenant_id = ?",
						tenant)).as(tenant).isEqualTo(moved ? 0 : 1);
			}
		});
	}

	@Test
	@DisplayName("draining a shard registered at runtime moves its tenants online (its change capture was installed)")
	void drainingARuntimeShardMovesItsTenantsOnline() {
		this.runner.run(context -> {
			TenantAdmin lifecycle = context.getBean(TenantAdmin.class);
			ShardTenancy tenancy = context.getBean(ShardTenancy.class);
			HikariConfig config = new HikariConfig();
			config.setJdbcUrl(h2("shard-3"));
			lifecycle.registerShard("shard-3", "eu", config);
			assertThat(lifecycle.create("newcomer").shardId()).isEqualTo("shard-1");
			context.getBean(TenantMover.class).moveAndWait("newcomer", "shard-3", context.getBean(MoveSettings.class));
			insertNote(tenancy, "newcomer");

			assertThat(lifecycle.drain("shard-3")).containsExactly("newcomer");

			String owner = lifecycle.find("newcomer").orElseThrow().shardId();
			assertThat(owner).isNotEqualTo("shard-3");
			assertThat(count(tenancy.directoryDataSource(), "SELECT COUNT(*) FROM shard_move WHERE tenant_id = ? "
					+ "AND source_shard_id = 'shard-3' AND step = 'DONE'", "newcomer")).isOne();
			assertThat(count(tenancy.topology().dataSource(owner),
					"SELECT COUNT(*) FROM note WHERE tenant_id = ?", "newcomer")).isOne();
		});
	}

	@Test
	@DisplayName("with an online clean delay the move returns after the flip and the source is cleaned once it passes")
	void anOnlineCleanDelayCleansTheSourceLater() {
		this.runner.withPropertyValues("shard-tenancy.move.online-clean-delay=200ms").run(context -> {
			TenantAdmin lifecycle = context.getBean(TenantAdmin.class);
			ShardTenancy tenancy = context.getBean(ShardTenancy.class);
			assertThat(lifecycle.create("later").shardId()).isEqualTo("shard-1");
			ShardTopology topology = tenancy.topology();
			insertNote(tenancy, "later");

			context.getBean(TenantMover.class).moveAndWait("later", "shard-2", context.getBean(MoveSettings.class));

			assertThat(lifecycle.find("later").orElseThrow().shardId()).isEqualTo("shard-2");
			await("the move cleans the source after its delay").atMost(Duration.ofSeconds(30))
				.untilAsserted(() -> assertThat(count(tenancy.directoryDataSource(),
						"SELECT COUNT(*) FROM shard_move WHERE tenant_id = ? AND step = 'DONE'", "later")).isOne());
			assertThat(count(topology.dataSource("shard-1"), "SELECT COUNT(*) FROM note WHERE tenant_id = ?",
					"later")).isZero();
			assertThat(count(topology.dataSource("shard-2"), "SELECT COUNT(*) FROM note WHERE tenant_id = ?",
					"later")).isOne();
		});
	}

	@Test
	@DisplayName("TenantAdmin.create goes through the shard registry: a shard that is not ACTIVE there is refused")
	void tenantAdminCreateGoesThroughTheRegistry() {
		this.runner.withPropertyValues("shard-tenancy.lifecycle.register-shards=false").run(context -> {
			TenantAdmin admin = context.getBean(TenantAdmin.class);
			admin.registerShard("shard-2", "us", null, null);
			assertThatThrownBy(() -> admin.create("early", "shard-1"))
				.isInstanceOf(io.github.shardtenancy.PlacementException.class)
				.hasMessageContaining("shard 'shard-1', which is not an ACTIVE registered shard");
			assertThat(admin.find("early")).as("nothing written").isEmpty();

			admin.registerShard("shard-1", "eu", null, null);
			assertThat(admin.create("early", "shard-1").shardId()).isEqualTo("shard-1");
			assertThat(context.getBean(io.github.shardtenancy.TenantRouter.class).route("early").shardId())
				.isEqualTo("shard-1");
		});
	}

	@Test
	@DisplayName("TenantAdmin.create places on the shard asked for when it is registered")
	void tenantAdminCreatesOnARegisteredShard() {
		this.runner.run(context -> {
			TenantAdmin admin = context.getBean(TenantAdmin.class);
			assertThat(admin.create("second", "shard-2").shardId()).isEqualTo("shard-2");
			assertThat(admin.find("second").orElseThrow().shardId()).isEqualTo("shard-2");
		});
	}

	@Test
	@DisplayName("the lifecycle's moves back off to the application's own MoveSettings: stop-the-world here")
	void theLifecycleUsesTheApplicationsMoveSettings() {
		this.runner
			.withBean(MoveSettings.class, MoveSettings::stopTheWorld)
			.run(context -> {
				TenantAdmin lifecycle = context.getBean(TenantAdmin.class);
				lifecycle.create("mine");
				assertThat(lifecycle.override("mine", "shard-2")).as("moved").isTrue();
				TenantAdmin directory = lifecycle;
				assertThat(directory.find("mine").orElseThrow().shardId()).isEqualTo("shard-2");
				assertThat(directory.history("mine"))
					.extracting(DirectoryHistoryRecord::toState)
					.containsExactly(TenantState.ACTIVE, TenantState.FROZEN, TenantState.ACTIVE);
			});
	}

	private static long count(javax.sql.DataSource dataSource, String sql, String parameter) throws Exception {
		try (Connection c = dataSource.getConnection(); java.sql.PreparedStatement ps = c.prepareStatement(sql)) {
			ps.setString(1, parameter);
			try (ResultSet rs = ps.executeQuery()) {
				rs.next();
				return rs.getLong(1);
			}
		}
	}

	private static void insertNote(ShardTenancy tenancy, String tenant) throws Exception {
		String shardId = tenancy.router().route(tenant).shardId();
		FenceDialect dialect = tenancy.fenceDialect(shardId);
		try (Connection c = tenancy.topology().dataSource(shardId).getConnection()) {
			dialect.begin(c, tenant, tenancy.router().route(tenant).version());
			try (java.sql.PreparedStatement ps = c
				.prepareStatement("INSERT INTO note (id, tenant_id, title) VALUES (?, ?, ?)")) {
				ps.setObject(1, UUID.randomUUID());
				ps.setString(2, tenant);
				ps.setString(3, "first");
				ps.executeUpdate();
			}
			if (!c.getAutoCommit()) {
				c.commit();
			}
			dialect.end(c);
		}
	}

}
