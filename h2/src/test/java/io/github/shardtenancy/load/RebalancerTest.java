package io.github.shardtenancy.load;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

import com.zaxxer.hikari.HikariConfig;
import io.github.shardtenancy.HotTenant;
import io.github.shardtenancy.LoadMeasure;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.RebalanceProposal;
import io.github.shardtenancy.RebalanceResult;
import io.github.shardtenancy.RebalanceSettings;
import io.github.shardtenancy.Rebalancer;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.TenantLoad;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import io.github.shardtenancy.ShardLoad;
import io.github.shardtenancy.testing.ShardTenancyFixture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The load figures and the rebalancer on a real fleet of six H2 shards wired by {@link ShardTenancy#builder()}: 300
 * tenants created on two of them (a skewed fleet), rows written through the tenant-routing {@code DataSource}, the
 * proposal computed from the directory and the shards, and executed with real stop-the-world moves.
 */
@DisplayName("Rebalancer on H2: a skewed fleet of 6 shards and 300 tenants converges; pins kept; concurrency bounded")
class RebalancerTest {

	private static final int SHARDS = 6;

	private static final int TENANTS = 300;

	private final String name = "rebalance-" + UUID.randomUUID().toString().substring(0, 8);

	private ShardTenancy tenancy;

	@BeforeEach
	void start() {
		var builder = ShardTenancy.builder()
			.directory(pool("jdbc:h2:mem:" + this.name + "-directory;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000"))
			.tenantTables(ShardTenancyFixture.TABLES)
			.shardMigrator((shardId, dataSource, dialect) -> ShardTenancyMigrations.migrateShard(dataSource, shardId,
					List.of(ShardTenancyFixture.CHANGELOG)))
			.loadTracking(true, Duration.ofMinutes(5), 10_000)
			.actor("rebalance@test");
		for (int i = 1; i <= SHARDS; i++) {
			builder.shard("shard-" + i, pool(url("shard-" + i)));
		}
		this.tenancy = builder.build();
		ShardTenancyMigrations.migrateDirectory(this.tenancy.directoryDataSource());
		for (String shardId : this.tenancy.topology().shardIds()) {
			ShardTenancyMigrations.migrateShard(this.tenancy.topology().dataSource(shardId), shardId,
					List.of(ShardTenancyFixture.CHANGELOG));
		}
		this.tenancy.start();
	}

	@AfterEach
	void stop() {
		if (this.tenancy != null) {
			this.tenancy.close();
		}
		shutdown("jdbc:h2:mem:" + this.name + "-directory");
		for (int i = 1; i <= SHARDS; i++) {
			shutdown(url("shard-" + i));
		}
	}

	/** Creates 300 tenants, 2 of every 3 on shard-1 and the rest on shard-2; tenant i gets 1 + i % 4 notes. */
	private void skewedFleet() {
		for (int i = 0; i < TENANTS; i++) {
			String tenantId = tenant(i);
			this.tenancy.admin().create(tenantId, i % 3 == 2 ? "shard-2" : "shard-1");
			writeNotes(tenantId, 1 + i % 4);
		}
	}

	private static String tenant(int i) {
		return String.format("t-%03d", i);
	}

	/** Writes notes for a tenant in one transaction through the tenant-routing DataSource. */
	private void writeNotes(String tenantId, int notes) {
		try (TenantContext.Scope scope = TenantContext.bind(tenantId);
				Connection c = this.tenancy.dataSource().getConnection()) {
			c.setAutoCommit(false);
			try (PreparedStatement ps = c.prepareStatement("INSERT INTO note (id, tenant_id, body) VALUES (?, ?, ?)")) {
				for (int n = 0; n < notes; n++) {
					ps.setObject(1, UUID.randomUUID());
					ps.setString(2, tenantId);
					ps.setString(3, "note " + n);
					ps.addBatch();
				}
				ps.executeBatch();
			}
			c.commit();
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	@Test
	@DisplayName("traffic is counted per tenant at connection release: transactions and rows written")
	void traffic() {
		this.tenancy.admin().create("busy", "shard-1");
		this.tenancy.admin().create("quiet", "shard-2");
		writeNotes("busy", 7);
		writeNotes("busy", 3);
		writeNotes("quiet", 1);
		Map<String, TenantLoad> traffic = new HashMap<>();
		this.tenancy.load().traffic().forEach(t -> traffic.put(t.tenantId(), t));
		assertThat(this.tenancy.load().tracking()).isTrue();
		assertThat(traffic.get("busy").transactions()).isEqualTo(2);
		assertThat(traffic.get("busy").rowsWritten()).isEqualTo(10);
		assertThat(traffic.get("busy").shardId()).isEqualTo("shard-1");
		assertThat(traffic.get("busy").nanosSpent()).isPositive();
		assertThat(traffic.get("quiet").transactions()).isEqualTo(1);
		assertThat(traffic.get("quiet").rowsWritten()).isEqualTo(1);
		assertThat(this.tenancy.load().traffic().get(0).tenantId()).isEqualTo("busy");
		// The storage read from the shards agrees; H2 estimates no bytes.
		Map<String, TenantLoad> measured = new HashMap<>();
		this.tenancy.load().measure().forEach(t -> measured.put(t.tenantId(), t));
		assertThat(measured.get("busy").rowsStored()).isEqualTo(10);
		assertThat(measured.get("busy").bytesStored()).isEqualTo(-1);
		assertThat(measured.get("busy").transactions()).isEqualTo(2);
		List<ShardLoad> shards = this.tenancy.load().shards(List.copyOf(measured.values()));
		assertThat(shards).hasSize(SHARDS);
		assertThat(shards.get(0)).extracting(ShardLoad::shardId, ShardLoad::tenants, ShardLoad::rowsStored,
				ShardLoad::rowsWritten).containsExactly("shard-1", 1L, 10L, 10L);
	}

	@Test
	@DisplayName("a rolled-back transaction's rows are not counted as written")
	void rollback() throws SQLException {
		this.tenancy.admin().create("undecided", "shard-1");
		try (TenantContext.Scope scope = TenantContext.bind("undecided");
				Connection c = this.tenancy.dataSource().getConnection()) {
			c.setAutoCommit(false);
			try (PreparedStatement ps = c.prepareStatement("INSERT INTO note (id, tenant_id, body) VALUES (?, ?, ?)")) {
				ps.setObject(1, UUID.randomUUID());
				ps.setString(2, "undecided");
				ps.setString(3, "gone");
				assertThat(ps.executeUpdate()).isEqualTo(1);
			}
			c.rollback();
		}
		TenantLoad load = this.tenancy.load().traffic().stream()
			.filter(t -> t.tenantId().equals("undecided"))
			.findFirst()
			.orElseThrow();
		assertThat(load.transactions()).isEqualTo(1);
		assertThat(load.rowsWritten()).isZero();
	}

	@Test
	@DisplayName("a dry run proposes moves that balance the fleet and moves nothing")
	void dryRun() {
		skewedFleet();
		Map<String, Long> before = tenantsPerShard();
		RebalanceProposal proposal = this.tenancy.rebalancer()
			.propose(RebalanceSettings.defaults().withMaxMovesPerRound(1000));
		assertThat(proposal.balancedBefore()).isFalse();
		assertThat(proposal.balancedAfter()).isTrue();
		assertThat(proposal.before()).extracting(ShardLoad::tenants).containsExactly(200L, 100L, 0L, 0L, 0L, 0L);
		assertThat(proposal.after()).allSatisfy(s -> assertThat(s.tenants()).isBetween(45L, 55L));
		assertThat(proposal.moves()).allSatisfy(m -> assertThat(m.sourceShardId()).isIn("shard-1", "shard-2"));
		assertThat(tenantsPerShard()).isEqualTo(before);
		System.out.printf("dry run (tenants, band 10%%): %d moves proposed, median %.1f -> %.1f, after %s%n",
				proposal.moves().size(), proposal.medianBefore(), proposal.medianAfter(),
				proposal.after().stream().map(ShardLoad::tenants).toList());
	}

	@Test
	@DisplayName("executed with real moves, every shard ends within the band; pinned tenants stay; at most N at once")
	void converges() {
		skewedFleet();
		List<String> pinned = List.of(tenant(0), tenant(1), tenant(2), tenant(3), tenant(4), tenant(5));
		Map<String, String> pinnedShards = new HashMap<>();
		for (String tenantId : pinned) {
			this.tenancy.admin().pin(tenantId);
			pinnedShards.put(tenantId, this.tenancy.admin().find(tenantId).orElseThrow().shardId());
		}
		Map<String, Long> notesBefore = notesPerTenant();
		RebalanceSettings settings = RebalanceSettings.defaults()
			.withMaxConcurrentMoves(3)
			.withMaxMovesPerRound(80)
			.withMoveSettings(MoveSettings.stopTheWorld());
		RebalanceResult result = this.tenancy.rebalancer().rebalance(settings, 10);

		Map<String, Long> after = tenantsPerShard();
		assertThat(result.failed()).isEmpty();
		assertThat(result.balanced()).isTrue();
		assertThat(Rebalancer.balanced(result.last().before(), LoadMeasure.TENANTS, 0.1)).isTrue();
		assertThat(after.values()).allSatisfy(n -> assertThat(n).isBetween(45L, 55L));
		assertThat(after.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(TENANTS);
		assertThat(result.maxConcurrent()).isBetween(1, 3);
		assertThat(result.moved()).noneMatch(m -> pinned.contains(m.tenantId()));
		for (String tenantId : pinned) {
			assertThat(this.tenancy.admin().find(tenantId).orElseThrow().shardId())
				.isEqualTo(pinnedShards.get(tenantId));
		}
		// Nothing lost or duplicated: every tenant's notes, on the shard that owns it now.
		assertThat(notesPerTenant()).isEqualTo(notesBefore);
		System.out.printf("rebalance (tenants, band 10%%, 3 at once, 80 per round): %d moves in %d rounds, "
				+ "most at once %d, tenants per shard %s%n", result.moved().size(), result.rounds(),
				result.maxConcurrent(), after);
	}

	@Test
	@DisplayName("with one move at a time, never two run at once; by rows, the proposal balances rows")
	void oneAtATimeByRows() {
		skewedFleet();
		RebalanceSettings settings = RebalanceSettings.defaults()
			.withMeasure(LoadMeasure.ROWS)
			.withBand(0.15)
			.withMaxConcurrentMoves(1)
			.withMaxMovesPerRound(40)
			.withMoveSettings(MoveSettings.stopTheWorld());
		RebalanceResult result = this.tenancy.rebalancer().rebalance(settings, 10);
		assertThat(result.failed()).isEmpty();
		assertThat(result.maxConcurrent()).isEqualTo(1);
		assertThat(result.balanced()).isTrue();
		Map<String, Long> rows = new TreeMap<>();
		this.tenancy.load().shards(this.tenancy.load().measure()).forEach(s -> rows.put(s.shardId(), s.rowsStored()));
		assertThat(rows.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(750);
		System.out.printf("rebalance (rows, band 15%%, 1 at once, 40 per round): %d moves in %d rounds, rows per "
				+ "shard %s%n", result.moved().size(), result.rounds(), rows);
	}

	@Test
	@DisplayName("a tenant pinned or moved after the proposal is skipped by the execution; the others move")
	void skipsWhatChangedSinceTheProposal() {
		for (int i = 0; i < 8; i++) {
			this.tenancy.admin().create(tenant(i), "shard-1");
		}
		RebalanceSettings settings = RebalanceSettings.defaults().withMoveSettings(MoveSettings.stopTheWorld());
		RebalanceProposal proposal = this.tenancy.rebalancer().propose(settings);
		assertThat(proposal.moves()).hasSizeGreaterThanOrEqualTo(3);
		RebalanceProposal.Move pinned = proposal.moves().get(0);
		RebalanceProposal.Move movedMeanwhile = proposal.moves().get(1);
		this.tenancy.admin().pin(pinned.tenantId());
		String elsewhere = movedMeanwhile.targetShardId().equals("shard-6") ? "shard-5" : "shard-6";
		this.tenancy.mover().moveAndWait(movedMeanwhile.tenantId(), elsewhere, MoveSettings.stopTheWorld());

		RebalanceResult result = this.tenancy.rebalancer().execute(proposal, settings);
		assertThat(result.skipped()).containsOnlyKeys(pinned.tenantId(), movedMeanwhile.tenantId());
		assertThat(result.failed()).isEmpty();
		assertThat(result.moved()).hasSize(proposal.moves().size() - 2);
		assertThat(this.tenancy.admin().find(pinned.tenantId()).orElseThrow().shardId()).isEqualTo("shard-1");
		assertThat(this.tenancy.admin().find(movedMeanwhile.tenantId()).orElseThrow().shardId()).isEqualTo(elsewhere);
	}

	@Test
	@DisplayName("the hot-tenant report names tenants above the threshold share of their shard")
	void hotTenants() {
		this.tenancy.admin().create("whale", "shard-3");
		this.tenancy.admin().create("minnow-1", "shard-3");
		this.tenancy.admin().create("minnow-2", "shard-3");
		writeNotes("whale", 40);
		writeNotes("minnow-1", 5);
		writeNotes("minnow-2", 5);
		List<HotTenant> hot = this.tenancy.load().hotTenants(this.tenancy.load().measure(), LoadMeasure.ROWS, 0.5);
		assertThat(hot).singleElement().satisfies(h -> {
			assertThat(h.tenantId()).isEqualTo("whale");
			assertThat(h.shardId()).isEqualTo("shard-3");
			assertThat(h.load()).isEqualTo(40);
			assertThat(h.shardLoad()).isEqualTo(50);
			assertThat(h.share()).isEqualTo(0.8);
		});
		assertThat(this.tenancy.load().hotTenants(this.tenancy.load().traffic(), LoadMeasure.TRANSACTIONS, 0.3))
			.extracting(HotTenant::tenantId)
			.containsExactlyInAnyOrder("whale", "minnow-1", "minnow-2");
	}

	private Map<String, Long> tenantsPerShard() {
		Map<String, Long> counts = new TreeMap<>();
		for (int i = 1; i <= SHARDS; i++) {
			counts.put("shard-" + i, 0L);
		}
		try (Connection c = this.tenancy.directoryDataSource().getConnection();
				Statement s = c.createStatement();
				ResultSet rs = s.executeQuery("SELECT shard_id, COUNT(*) FROM shard_directory_entry "
						+ "WHERE state <> 'DELETED' GROUP BY shard_id")) {
			while (rs.next()) {
				counts.put(rs.getString(1), rs.getLong(2));
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
		return counts;
	}

	/** @return each tenant's notes, counted on the shard the directory names as its owner, other shards checked empty */
	private Map<String, Long> notesPerTenant() {
		Map<String, Long> notes = new TreeMap<>();
		Map<String, Map<String, Long>> perShard = new HashMap<>();
		for (String shardId : this.tenancy.topology().shardIds()) {
			Map<String, Long> counts = new HashMap<>();
			try (Connection c = this.tenancy.topology().dataSource(shardId).getConnection();
					Statement s = c.createStatement();
					ResultSet rs = s.executeQuery("SELECT tenant_id, COUNT(*) FROM note GROUP BY tenant_id")) {
				while (rs.next()) {
					counts.put(rs.getString(1), rs.getLong(2));
				}
			}
			catch (SQLException ex) {
				throw new IllegalStateException(ex);
			}
			perShard.put(shardId, counts);
		}
		for (int i = 0; i < TENANTS; i++) {
			String tenantId = tenant(i);
			String owner = this.tenancy.admin().find(tenantId).orElseThrow().shardId();
			notes.put(tenantId, perShard.get(owner).getOrDefault(tenantId, 0L));
			perShard.forEach((shardId, counts) -> {
				if (!shardId.equals(owner)) {
					assertThat(counts.get(tenantId)).as("notes of %s left on %s", tenantId, shardId).isNull();
				}
			});
		}
		return notes;
	}

	private String url(String shardId) {
		return "jdbc:h2:mem:" + this.name + "-" + shardId + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000";
	}

	private static HikariConfig pool(String url) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(url);
		config.setMaximumPoolSize(6);
		return config;
	}

	private static void shutdown(String url) {
		try (Connection c = java.sql.DriverManager.getConnection(url); Statement s = c.createStatement()) {
			s.execute("SHUTDOWN");
		}
		catch (SQLException ex) {
			// already gone
		}
	}

}
