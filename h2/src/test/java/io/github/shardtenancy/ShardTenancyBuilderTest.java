package io.github.shardtenancy;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.spi.ShardPoolListener;
import io.github.shardtenancy.spi.SlotPlacement;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import io.github.shardtenancy.testing.Note;
import io.github.shardtenancy.testing.ShardTenancyFixture;
import org.hibernate.SessionFactory;
import org.hibernate.cfg.Configuration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The core wired by {@link ShardTenancy#builder()} alone, without Spring, on fenced H2 shards: a plain Hibernate
 * {@link SessionFactory} configured with {@link ShardTenancy#hibernateSettings()}, a tenant created with the admin,
 * written, moved online with the mover while nothing else happens, and written again, with nothing lost. And the
 * builder's {@link ShardPoolListener}s, told of every pool that joins or leaves the topology.
 */
@DisplayName("ShardTenancy builder: the whole core without Spring")
class ShardTenancyBuilderTest {

	private final String name = "builder-" + UUID.randomUUID().toString().substring(0, 8);

	private HikariConfig pool(String database) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl("jdbc:h2:mem:" + this.name + "-" + database + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000");
		config.setMaximumPoolSize(4);
		return config;
	}

	/** @return a builder with a directory, shards shard-1 and shard-2, the test tables and a migrator for new shards */
	private ShardTenancyBuilder twoShards(List<String> changelogs) {
		return ShardTenancy.builder()
			.directory(pool("directory"))
			.shard("shard-1", pool("shard-1"))
			.shard("shard-2", pool("shard-2"))
			.tenantTables(ShardTenancyFixture.TABLES)
			.shardMigrator((shardId, dataSource, dialect) -> ShardTenancyMigrations.migrateShard(dataSource, shardId,
					changelogs));
	}

	@Test
	@DisplayName("admin creates, Hibernate writes, the mover moves, Hibernate writes again: every row on the new owner")
	void createWriteMoveWrite() throws Exception {
		List<String> changelogs = List.of(ShardTenancyFixture.CHANGELOG);
		try (ShardTenancy tenancy = twoShards(changelogs).actor("builder@test").build()) {
			// The schemas are the application's: here the Liquibase module's changelogs and the test tables.
			ShardTenancyMigrations.migrateDirectory(tenancy.directoryDataSource());
			for (String shardId : tenancy.topology().shardIds()) {
				ShardTenancyMigrations.migrateShard(tenancy.topology().dataSource(shardId), shardId, changelogs);
			}
			tenancy.start();
			assertThat(tenancy.router().isReady()).isTrue();
			assertThat(tenancy.admin().shards()).extracting(ShardRecord::shardId, ShardRecord::state)
				.containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple("shard-1", ShardState.ACTIVE),
						org.assertj.core.groups.Tuple.tuple("shard-2", ShardState.ACTIVE));
			Configuration configuration = new Configuration().addAnnotatedClass(Note.class);
			configuration.getProperties().putAll(tenancy.hibernateSettings());
			configuration.setProperty("hibernate.dialect", "org.hibernate.dialect.H2Dialect");
			configuration.setProperty("hibernate.hbm2ddl.auto", "none");
			try (SessionFactory sessionFactory = configuration.buildSessionFactory()) {
				assertThat(tenancy.admin().create("acme", "shard-1").shardId()).isEqualTo("shard-1");
				TenantContext.runAs("acme", () -> sessionFactory.inTransaction((session) -> {
					session.persist(new Note("before the move"));
				}));

				MoveResult moved = tenancy.mover().moveAndWait("acme", "shard-2", MoveSettings.defaults());

				assertThat(moved.step()).isEqualTo(MoveStep.DONE);
				assertThat(moved.rowsCopied()).containsEntry("note", 1L);
				assertThat(tenancy.router().route("acme").shardId()).isEqualTo("shard-2");
				TenantContext.runAs("acme", () -> sessionFactory.inTransaction((session) -> {
					session.persist(new Note("after the move"));
				}));
				List<String> bodies = TenantContext.callAs("acme", () -> sessionFactory.fromTransaction(
						(session) -> session.createQuery("select n.body from Note n order by n.body", String.class)
							.getResultList()));
				assertThat(bodies).containsExactly("after the move", "before the move");
				assertThat(notes(tenancy.topology().dataSource("shard-2"), "acme")).isEqualTo(2);
				assertThat(notes(tenancy.topology().dataSource("shard-1"), "acme")).as("source cleaned").isZero();
				assertThat(tenancy.admin().history("acme")).extracting(DirectoryHistoryRecord::toState)
					.containsExactly(TenantState.ACTIVE, TenantState.MIGRATING, TenantState.FROZEN, TenantState.ACTIVE);
				assertThat(tenancy.admin().history("acme")).extracting(DirectoryHistoryRecord::changedBy)
					.containsOnly("builder@test");
			}
			assertThat(tenancy.reconcile().missing()).isEmpty();
		}
	}

	@Test
	@DisplayName("fixed slots through the API: initializeSlots, the slots policy places by slot, moveSlot moves them")
	void slotsThroughTheApi() {
		List<String> changelogs = List.of(ShardTenancyFixture.CHANGELOG);
		try (ShardTenancy tenancy = ShardTenancy.builder()
			.directory(pool("directory"))
			.shard("shard-1", pool("shard-1"))
			.shard("shard-2", pool("shard-2"))
			.tenantTables(ShardTenancyFixture.TABLES)
			.placementPolicy(new SlotPlacement())
			.build()) {
			ShardTenancyMigrations.migrateDirectory(tenancy.directoryDataSource());
			for (String shardId : tenancy.topology().shardIds()) {
				ShardTenancyMigrations.migrateShard(tenancy.topology().dataSource(shardId), shardId, changelogs);
			}
			tenancy.start();
			assertThatThrownBy(() -> tenancy.admin().create("before-slots")).isInstanceOf(PlacementException.class)
				.hasMessageContaining("TenantAdmin.initializeSlots");

			tenancy.admin().initializeSlots(2, List.of("shard-1", "shard-2"));
			tenancy.admin().initializeSlots(2, List.of("shard-1", "shard-2")); // idempotent for the same count

			String onSlot0 = java.util.stream.IntStream.range(0, 100).mapToObj((i) -> "tenant-" + i)
				.filter((t) -> slotOf(t) == 0).findFirst().orElseThrow();
			String placed = tenancy.admin().create(onSlot0).shardId();
			SlotMoveResult moved = tenancy.admin().moveSlot(0, placed.equals("shard-1") ? "shard-2" : "shard-1");
			assertThat(moved.moved()).contains(onSlot0);
			assertThat(tenancy.router().route(onSlot0).shardId()).isNotEqualTo(placed);
			assertThatThrownBy(() -> tenancy.admin().initializeSlots(4, List.of("shard-1")))
				.isInstanceOf(PlacementException.class);
		}
	}

	private static int slotOf(String tenantId) {
		java.util.zip.CRC32 crc = new java.util.zip.CRC32();
		crc.update(tenantId.getBytes(java.nio.charset.StandardCharsets.UTF_8));
		return (int) (crc.getValue() % 2);
	}

	private static long notes(DataSource shard, String tenant) throws SQLException {
		try (Connection c = shard.getConnection();
				PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM note WHERE tenant_id = ?")) {
			ps.setString(1, tenant);
			try (ResultSet rs = ps.executeQuery()) {
				rs.next();
				return rs.getLong(1);
			}
		}
	}

	private record Event(String kind, String shardId, boolean poolOpen) {
	}

	@Test
	@DisplayName("shard pool listeners: builder and runtime shards told added, a retired shard and the rest on close told removed; a throwing listener changes nothing")
	void addedAndRemoved() {
		List<Event> events = new CopyOnWriteArrayList<>();
		ShardPoolListener recording = new ShardPoolListener() {

			@Override
			public void poolAdded(String shardId, DataSource pool) {
				events.add(new Event("added", shardId, !((HikariDataSource) pool).isClosed()));
			}

			@Override
			public void poolRemoved(String shardId, DataSource pool) {
				events.add(new Event("removed", shardId, !((HikariDataSource) pool).isClosed()));
			}

		};
		ShardPoolListener throwing = new ShardPoolListener() {

			@Override
			public void poolAdded(String shardId, DataSource pool) {
				throw new IllegalStateException("listener bug");
			}

		};
		List<String> changelogs = List.of(ShardTenancyFixture.CHANGELOG);
		ShardTenancy tenancy = twoShards(changelogs)
			.shardPoolListener(throwing)
			.shardPoolListener(recording)
			.actor("listener@test")
			.build();
		try {
			ShardTenancyMigrations.migrateDirectory(tenancy.directoryDataSource());
			for (String shardId : tenancy.topology().shardIds()) {
				ShardTenancyMigrations.migrateShard(tenancy.topology().dataSource(shardId), shardId, changelogs);
			}
			tenancy.start();
			assertThat(events).containsExactlyInAnyOrder(new Event("added", "shard-1", true),
					new Event("added", "shard-2", true));

			tenancy.admin().registerShard("shard-3", null, pool("shard-3"));
			assertThat(tenancy.topology().contains("shard-3")).as("the throwing listener kept no shard out").isTrue();
			assertThat(events).endsWith(new Event("added", "shard-3", true));

			DataSource shard3 = tenancy.topology().dataSource("shard-3");
			tenancy.admin().retireShard("shard-3");
			assertThat(events).endsWith(new Event("removed", "shard-3", true));
			assertThat(((HikariDataSource) shard3).isClosed()).as("the retired shard's pool, after the call").isTrue();
		}
		finally {
			tenancy.close();
		}
		assertThat(events.subList(3, events.size())).containsExactlyInAnyOrder(new Event("removed", "shard-3", true),
				new Event("removed", "shard-1", true), new Event("removed", "shard-2", true));
	}

}
