package io.github.shardtenancy.postgresql;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import io.github.shardtenancy.testing.ids.SeededIds;
import io.github.shardtenancy.testing.pg.ScratchPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code Integer} id counters start above the rows already on the shards, on embedded PostgreSQL with row-level
 * security ({@link SeededIds}): the shards' role is neither a superuser nor has {@code BYPASSRLS} and owns the shard
 * databases (it runs the changelogs), so the tenant table's rows are hidden from it without a tenant, and the floor
 * is read under the library's maintenance mark. Reference rows seeded by a changelog on every shard, tenant rows on
 * one shard, a table on one shard keyed by another column, and a shard registered at runtime with rows.
 */
@DisplayName("PostgreSQL: the Integer id counters start above the ids already on every shard, row-level security on")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresIdFloorTest {

	private static final String ROLE = "id_floor_app";

	private static final String DIALECT = "org.hibernate.dialect.PostgreSQLDialect";

	private ScratchPostgres postgres;

	/** Pools as the superuser, to set up and to count every tenant's rows. */
	private final Map<String, HikariDataSource> owners = new LinkedHashMap<>();

	@BeforeAll
	void startServer() throws SQLException {
		this.postgres = ScratchPostgres.start("id-floor");
		this.owners.put("directory", this.postgres.createDatabase("directory", 2));
		try (Connection c = DriverManager.getConnection(this.postgres.server().jdbcUrl(),
				this.postgres.server().user(), this.postgres.server().password()); Statement st = c.createStatement()) {
			st.execute("CREATE ROLE " + ROLE + " LOGIN PASSWORD '" + ROLE + "' NOSUPERUSER NOBYPASSRLS");
			for (String shard : List.of("shard_1", "shard_2", "shard_3")) {
				st.execute("CREATE DATABASE " + shard + " OWNER " + ROLE);
			}
		}
		ShardTenancyMigrations.migrateDirectory(this.owners.get("directory"));
		for (String shard : List.of("shard-1", "shard-2", "shard-3")) {
			try (HikariDataSource app = new HikariDataSource(pool(shard))) {
				ShardTenancyMigrations.migrateShard(app, shard, SeededIds.CHANGELOGS);
			}
			this.owners.put(shard, new HikariDataSource(superuser(shard)));
		}
		try (HikariDataSource app = new HikariDataSource(pool("shard-2"))) {
			SeededIds.seedTenantRows(app, "legacy", 1, SeededIds.TENANT_ROWS, true);
		}
		try (HikariDataSource app = new HikariDataSource(pool("shard-3"))) {
			SeededIds.seedTenantRows(app, "imported", 1, 900, false);
		}
	}

	@AfterAll
	void stopServer() {
		this.owners.values().forEach(HikariDataSource::close);
		if (this.postgres != null) {
			this.postgres.close();
		}
	}

	private String url(String database) {
		return this.postgres.server().jdbcUrl().replace("/postgres", "/" + database.replace('-', '_'));
	}

	/** @return a pool configuration of a database: the directory as the superuser, a shard as the role */
	private HikariConfig pool(String database) {
		if (database.equals("directory")) {
			return ScratchPostgres.configLike(this.owners.get("directory"), 4);
		}
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(url(database));
		config.setUsername(ROLE);
		config.setPassword(ROLE);
		config.setMaximumPoolSize(4);
		return config;
	}

	private HikariConfig superuser(String shard) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(url(shard));
		config.setUsername(this.postgres.server().user());
		config.setPassword(this.postgres.server().password());
		config.setMaximumPoolSize(2);
		return config;
	}

	@Test
	@DisplayName("seeded reference rows 1-6 on every shard, tenant rows 1-40 on shard-2 hidden by row-level security: the first JDBC and @ShardSafeId ids are above them; a shard registered with ids up to 900 raises them again")
	void firstIdsAboveSeededRows() throws Exception {
		try (ShardTenancy tenancy = SeededIds.builder("floor@pg", this::pool).rowLevelSecurity(true).build()) {
			tenancy.start();
			assertThat(visibleWithoutTenant(tenancy.topology().dataSource("shard-2")))
				.as("row-level security hides the seeded tenant rows from the role without a tenant").isZero();

			SeededIds.firstIdsAboveSeededRows(tenancy, DIALECT, this.owners::get);

			SeededIds.shardRegisteredWithRows(tenancy, DIALECT, "shard-3", pool("shard-3"), 900);
		}
	}

	private static long visibleWithoutTenant(DataSource shard) throws SQLException {
		try (Connection c = shard.getConnection(); Statement st = c.createStatement();
				ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM int_ticket")) {
			rs.next();
			return rs.getLong(1);
		}
	}

}
