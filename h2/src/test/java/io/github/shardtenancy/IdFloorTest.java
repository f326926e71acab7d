package io.github.shardtenancy;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.UUID;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import io.github.shardtenancy.testing.ids.SeededIds;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code Integer} id counters start above the rows already on the shards, on H2 ({@link SeededIds}): reference
 * rows seeded by a shard changelog on every shard, tenant rows on one shard, a table on one shard keyed by another
 * column, and a shard registered at runtime with rows.
 */
@DisplayName("Integer ids: the counters start above the ids already on every shard")
class IdFloorTest {

	private static final String DIALECT = "org.hibernate.dialect.H2Dialect";

	private final String name = "floor-" + UUID.randomUUID().toString().substring(0, 8);

	private HikariConfig pool(String database) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl("jdbc:h2:mem:" + this.name + "-" + database + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000");
		config.setMaximumPoolSize(4);
		return config;
	}

	private ShardTenancy seeded(String actor) throws SQLException {
		ShardTenancy tenancy = SeededIds.builder(actor, this::pool).build();
		ShardTenancyMigrations.migrateDirectory(tenancy.directoryDataSource());
		for (String shardId : List.of("shard-1", "shard-2")) {
			ShardTenancyMigrations.migrateShard(tenancy.topology().dataSource(shardId), shardId, SeededIds.CHANGELOGS);
		}
		SeededIds.seedTenantRows(tenancy.topology().dataSource("shard-2"), "legacy", 1, SeededIds.TENANT_ROWS, true);
		return tenancy;
	}

	@Test
	@DisplayName("seeded reference rows 1-6 on every shard, tenant rows 1-40 on shard-2: the first JDBC and @ShardSafeId ids are above them")
	void firstIdsAboveSeededRows() throws Exception {
		try (ShardTenancy tenancy = seeded("floor@test")) {
			tenancy.start();

			SeededIds.firstIdsAboveSeededRows(tenancy, DIALECT, (shard) -> tenancy.topology().dataSource(shard));

			assertThat(counter(tenancy.directoryDataSource(), "ref_colour")).isGreaterThan(SeededIds.REFERENCE_ROWS + 1L);
		}
	}

	@Test
	@DisplayName("a shard registered at runtime with ids up to 900: the next ids are above them, the block in hand dropped")
	void shardRegisteredWithRows() throws Exception {
		try (ShardTenancy tenancy = seeded("register@test");
				HikariDataSource shard3 = new HikariDataSource(pool("shard-3"))) {
			tenancy.start();
			assertThat(tenancy.nextIntId("int_ticket")).isGreaterThan(SeededIds.TENANT_ROWS);
			ShardTenancyMigrations.migrateShard(shard3, "shard-3", SeededIds.CHANGELOGS);
			SeededIds.seedTenantRows(shard3, "imported", 1, 900, false);

			SeededIds.shardRegisteredWithRows(tenancy, DIALECT, "shard-3", pool("shard-3"), 900);
		}
	}

	@Test
	@DisplayName("an instance started after more rows were written raises the counter another instance created")
	void startAfterMoreRows() throws Exception {
		try (ShardTenancy first = seeded("first@test")) {
			first.start();
			assertThat(first.nextIntId("legacy_code")).isGreaterThan(SeededIds.LEGACY_ROWS);
			try (Connection c = first.topology().dataSource("shard-2").getConnection();
					PreparedStatement ps = c.prepareStatement("INSERT INTO legacy_code (code_no) VALUES (?)")) {
				ps.setInt(1, 520);
				ps.executeUpdate();
			}
			try (ShardTenancy second = SeededIds.builder("second@test", this::pool).build()) {
				second.start();
				assertThat(second.nextIntId("legacy_code")).as("raised at start-up, above the new row").isGreaterThan(520);
			}
		}
	}

	@Test
	@DisplayName("a quoted mixed-case table name and a reserved word: found in any case and quoted, the counter above their rows")
	void quotedNames() throws Exception {
		try (ShardTenancy tenancy = seeded("quoted@test")) {
			try (Connection c = tenancy.topology().dataSource("shard-1").getConnection();
					java.sql.Statement st = c.createStatement()) {
				st.execute("CREATE TABLE \"Legacy_Mixed\" (\"Key\" INT PRIMARY KEY)");
				st.execute("INSERT INTO \"Legacy_Mixed\" VALUES (33)");
				st.execute("CREATE TABLE \"ORDER\" (\"ID\" INT PRIMARY KEY)");
				st.execute("INSERT INTO \"ORDER\" VALUES (12)");
			}
			tenancy.start();

			assertThat(tenancy.nextIntId("Legacy_Mixed")).isGreaterThan(33);
			assertThat(tenancy.nextIntId("order")).isGreaterThan(12);
		}
	}

	private static long counter(DataSource directory, String name) throws SQLException {
		try (Connection c = directory.getConnection();
				PreparedStatement ps = c.prepareStatement("SELECT next_id FROM shard_id_block WHERE counter_name = ?")) {
			ps.setString(1, name);
			try (ResultSet rs = ps.executeQuery()) {
				assertThat(rs.next()).isTrue();
				return rs.getLong(1);
			}
		}
	}

}
