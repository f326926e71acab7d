package io.github.shardtenancy.postgresql.load;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.LoadMeasure;
import io.github.shardtenancy.RebalanceResult;
import io.github.shardtenancy.RebalanceSettings;
import io.github.shardtenancy.Rebalancer;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.TenantLoad;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import io.github.shardtenancy.ShardLoad;
import io.github.shardtenancy.testing.ids.Tickets;
import io.github.shardtenancy.testing.pg.ScratchPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The load figures' bytes-on-disk estimate and one executed rebalance on embedded PostgreSQL, through
 * {@link ShardTenancy#builder()}: three shards, 30 tenants of different sizes all created on the first, balanced by
 * bytes with online moves (change capture).
 */
@DisplayName("PostgreSQL: bytes per tenant from pg_column_size; a rebalance by bytes with online moves")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresLoadTest {

	private static final List<String> SHARDS = List.of("shard_1", "shard_2", "shard_3");

	private static final int TENANTS = 30;

	private ScratchPostgres postgres;

	private final Map<String, HikariDataSource> databases = new java.util.LinkedHashMap<>();

	private final AtomicLong ids = new AtomicLong();

	@BeforeAll
	void startServer() throws SQLException {
		this.postgres = ScratchPostgres.start("load");
		this.databases.put("directory", this.postgres.createDatabase("directory", 2));
		for (String shard : SHARDS) {
			this.databases.put(shard, this.postgres.createDatabase(shard, 2));
		}
		ShardTenancyMigrations.migrateDirectory(this.databases.get("directory"));
		for (String shard : SHARDS) {
			ShardTenancyMigrations.migrateShard(this.databases.get(shard), shard.replace('_', '-'),
					List.of(Tickets.CHANGELOG));
		}
	}

	@AfterAll
	void stopServer() {
		if (this.postgres != null) {
			this.postgres.close();
		}
	}

	private HikariConfig pool(String database) {
		return ScratchPostgres.configLike(this.databases.get(database.replace('-', '_')), 6);
	}

	private ShardTenancy tenancy() {
		var builder = ShardTenancy.builder().directory(pool("directory")).tenantTables(Tickets.TABLES)
			.actor("load@pg");
		for (String shard : SHARDS) {
			builder.shard(shard.replace('_', '-'), pool(shard));
		}
		ShardTenancy tenancy = builder.build();
		tenancy.start();
		return tenancy;
	}

	private void write(ShardTenancy tenancy, String tenantId, int rows, int bodyLength) throws SQLException {
		try (TenantContext.Scope scope = TenantContext.bind(tenantId);
				Connection c = tenancy.dataSource().getConnection()) {
			c.setAutoCommit(false);
			try (PreparedStatement ps = c.prepareStatement("INSERT INTO ticket (id, tenant_id, body) VALUES (?, ?, ?)")) {
				for (int i = 0; i < rows; i++) {
					ps.setLong(1, this.ids.incrementAndGet());
					ps.setString(2, tenantId);
					ps.setString(3, "x".repeat(bodyLength));
					ps.addBatch();
				}
				ps.executeBatch();
			}
			c.commit();
		}
	}

	@Test
	@DisplayName("bytes per tenant follow the rows' size, add up to at most the table's heap, and drive a rebalance")
	void bytesAndRebalance() throws SQLException {
		try (ShardTenancy tenancy = tenancy()) {
			tenancy.admin().create("wide", "shard-1");
			tenancy.admin().create("narrow", "shard-1");
			write(tenancy, "wide", 200, 180);
			write(tenancy, "narrow", 200, 10);
			for (int i = 0; i < TENANTS; i++) {
				String tenantId = String.format("pg-%02d", i);
				tenancy.admin().create(tenantId, "shard-1");
				write(tenancy, tenantId, (i % 5 + 1) * 10, 100);
			}
			Map<String, TenantLoad> measured = new HashMap<>();
			tenancy.load().measure().forEach(t -> measured.put(t.tenantId(), t));
			TenantLoad wide = measured.get("wide");
			TenantLoad narrow = measured.get("narrow");
			assertThat(wide.rowsStored()).isEqualTo(200);
			assertThat(narrow.rowsStored()).isEqualTo(200);
			// Each row's data holds at least its id (8 bytes) and its body; the wide rows' bodies are 170 bytes longer.
			assertThat(wide.bytesStored()).isGreaterThanOrEqualTo(200L * (8 + 180));
			assertThat(wide.bytesStored() - narrow.bytesStored()).isBetween(200L * 160, 200L * 190);
			long heap = heapBytes(this.databases.get("shard_1"));
			long estimated = measured.values().stream().mapToLong(TenantLoad::bytesStored).sum();
			System.out.printf("bytes estimate: wide %d B (%d B/row), narrow %d B (%d B/row), all tenants %d B, "
					+ "heap of ticket on shard-1 %d B (%.0f %%)%n", wide.bytesStored(), wide.bytesStored() / 200,
					narrow.bytesStored(), narrow.bytesStored() / 200, estimated, heap, 100.0 * estimated / heap);
			assertThat(estimated).isLessThanOrEqualTo(heap).isGreaterThan(heap / 2);

			// The two 200-row tenants stay put (pinned); the rest balance the shards by bytes.
			tenancy.admin().pin("wide");
			tenancy.admin().pin("narrow");
			RebalanceSettings settings = RebalanceSettings.defaults()
				.withMeasure(LoadMeasure.BYTES)
				.withBand(0.25)
				.withMaxConcurrentMoves(2);
			RebalanceResult result = tenancy.rebalancer().rebalance(settings, 5);
			List<ShardLoad> shards = tenancy.load().shards(tenancy.load().measure());
			Map<String, Long> bytes = new TreeMap<>();
			shards.forEach(s -> bytes.put(s.shardId(), s.bytesStored()));
			System.out.printf("rebalance by bytes (band 25%%, 2 at once, online): %d moves in %d rounds, most at once "
					+ "%d, bytes per shard %s%n", result.moved().size(), result.rounds(), result.maxConcurrent(), bytes);
			assertThat(result.failed()).isEmpty();
			assertThat(result.balanced()).isTrue();
			assertThat(Rebalancer.balanced(shards, LoadMeasure.BYTES, 0.25)).isTrue();
			assertThat(result.maxConcurrent()).isBetween(1, 2);
			assertThat(tenancy.admin().find("wide").orElseThrow().shardId()).isEqualTo("shard-1");
			assertThat(tenancy.admin().find("narrow").orElseThrow().shardId()).isEqualTo("shard-1");
			// Every row is still there, once, on its tenant's owner.
			long rows = 0;
			for (String shard : SHARDS) {
				rows += count(this.databases.get(shard));
			}
			assertThat(rows).isEqualTo(400 + 6 * (10 + 20 + 30 + 40 + 50));
			for (TenantLoad tenant : tenancy.load().measure()) {
				assertThat(tenant.rowsStored()).as(tenant.tenantId()).isEqualTo(measured.get(tenant.tenantId())
					.rowsStored());
			}
		}
	}

	private static long heapBytes(HikariDataSource shard) throws SQLException {
		try (Connection c = shard.getConnection(); Statement s = c.createStatement()) {
			s.execute("VACUUM ticket");
			try (ResultSet rs = s.executeQuery("SELECT pg_relation_size('ticket')")) {
				rs.next();
				return rs.getLong(1);
			}
		}
	}

	private static long count(HikariDataSource shard) throws SQLException {
		try (Connection c = shard.getConnection(); Statement s = c.createStatement();
				ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM ticket")) {
			rs.next();
			return rs.getLong(1);
		}
	}

}
