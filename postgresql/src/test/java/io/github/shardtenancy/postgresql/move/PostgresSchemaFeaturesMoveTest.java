package io.github.shardtenancy.postgresql.move;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import io.github.shardtenancy.testing.move.SchemaFeaturesMoveScenarios;
import io.github.shardtenancy.testing.pg.ScratchPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.postgresql.PGConnection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link SchemaFeaturesMoveScenarios} on embedded PostgreSQL: {@code event} partitioned by list of {@code kind}, its
 * default partition partitioned again by hash of {@code id}; the note's foreign key {@code DEFERRABLE INITIALLY
 * DEFERRED}; an exclusion constraint on the bookings of a tenant. Moved as the owner (a superuser: {@code COPY}) and
 * as a least-privilege application role under row-level security (multi-row {@code INSERT}s). Also: a partition read,
 * written or truncated directly, not through its parent, keeps the isolation the parent has (row-level security and
 * the TRUNCATE refusal are per table in PostgreSQL, and only the row trigger is cloned onto partitions), also a
 * partition created or attached after the start.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayName("Online move on PostgreSQL: partitioned table, identity columns, deferrable foreign key, check and "
		+ "exclusion constraints")
class PostgresSchemaFeaturesMoveTest extends SchemaFeaturesMoveScenarios {

	private static final String ROLE = "features_app";

	private ScratchPostgres postgres;

	private final List<HikariDataSource> pools = new ArrayList<>();

	@BeforeAll
	void server() throws SQLException {
		this.postgres = ScratchPostgres.start("schema-features");
		try (Connection c = this.postgres.pool(1).getConnection(); Statement s = c.createStatement()) {
			s.execute("CREATE ROLE " + ROLE + " LOGIN PASSWORD '" + ROLE + "' NOSUPERUSER NOBYPASSRLS");
		}
	}

	@AfterAll
	void stopServer() {
		if (this.postgres != null) {
			this.postgres.close();
		}
	}

	@Override
	protected DataSource createDatabase(String name) throws SQLException {
		HikariDataSource pool = this.postgres.createDatabase(name, 10);
		this.pools.add(pool);
		return pool;
	}

	@Override
	protected List<String> eventTable() {
		return List.of("CREATE TABLE event (tenant_id VARCHAR(64) NOT NULL, id BIGINT NOT NULL, kind CHAR(1) NOT NULL, "
				+ "qty INT NOT NULL CHECK (qty >= 0), payload VARCHAR(64) NOT NULL, PRIMARY KEY (tenant_id, id, kind)) "
				+ "PARTITION BY LIST (kind)", "CREATE TABLE event_a PARTITION OF event FOR VALUES IN ('a')",
				"CREATE TABLE event_b PARTITION OF event FOR VALUES IN ('b')",
				"CREATE TABLE event_rest PARTITION OF event DEFAULT PARTITION BY HASH (id)",
				"CREATE TABLE event_rest_0 PARTITION OF event_rest FOR VALUES WITH (MODULUS 2, REMAINDER 0)",
				"CREATE TABLE event_rest_1 PARTITION OF event_rest FOR VALUES WITH (MODULUS 2, REMAINDER 1)");
	}

	@Override
	protected String noteKeyDeferral() {
		return "DEFERRABLE INITIALLY DEFERRED";
	}

	@Override
	protected String bookingConstraint() {
		return ", EXCLUDE USING gist (tenant_id WITH =, tstzrange(starts, ends) WITH &&)";
	}

	@Override
	protected void afterSchema(Statement owner) throws SQLException {
		owner.execute("GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO " + ROLE);
		owner.execute("GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO " + ROLE);
	}

	@Override
	protected void beforeSchema(Statement owner) throws SQLException {
		// btree_gist: the equality of tenant_id in the exclusion constraint.
		owner.execute("CREATE EXTENSION IF NOT EXISTS btree_gist");
	}

	@Override
	protected DataSource applicationPool(String database, String role) {
		HikariDataSource pool = this.postgres.poolAs(database, role, 10);
		this.pools.add(pool);
		return pool;
	}

	@Override
	protected void closeDatabases() {
		this.pools.forEach(HikariDataSource::close);
		this.pools.clear();
	}

	@Test
	@DisplayName("least-privilege role under row-level security (multi-row INSERT copy): DONE under writers, every "
			+ "committed row once on the new owner")
	void movesAsApplicationRole() throws Exception {
		start(ROLE);
		moveUnderWriters();
	}

	@Test
	@DisplayName("a shard installed before partitions were secured: the shard changelog gives every partition the "
			+ "table's row-level security policy and TRUNCATE refusal")
	void changelogSecuresPartitionsOfEarlierInstallations() throws Exception {
		start(ROLE);
		try (Connection c = this.shard1.getConnection(); Statement s = c.createStatement()) {
			// As an earlier version left a partition (the marker keeps the event trigger from mending it at once).
			s.execute("SELECT set_config('shard_tenancy.installing', 'on', false)");
			s.execute("DROP POLICY shard_fence_tenant ON event_rest_1");
			s.execute("DROP TRIGGER shard_fence_truncate_check ON event_rest_1");
			s.execute("ALTER TABLE event_rest_1 NO FORCE ROW LEVEL SECURITY");
			s.execute("ALTER TABLE event_rest_1 DISABLE ROW LEVEL SECURITY");
			s.execute("DELETE FROM databasechangelog WHERE id = 'fence-pg-partitions-1'");
			assertThat(secured(s, "event_rest_1")).isEqualTo("false/false/0/0");
			s.execute("RESET shard_tenancy.installing");
		}
		ShardTenancyMigrations.migrateShard(this.shard1, "shard-1", List.of());
		try (Connection c = this.shard1.getConnection(); Statement s = c.createStatement()) {
			for (String partition : List.of("event", "event_a", "event_rest", "event_rest_1")) {
				assertThat(secured(s, partition)).as(partition).isEqualTo("true/true/1/1");
			}
		}
	}

	/** @return row-level security on, forced, the fence's policy and its TRUNCATE refusal on a table, as a/b/c/d */
	private static String secured(Statement s, String table) throws SQLException {
		try (ResultSet rs = s.executeQuery("SELECT c.relrowsecurity || '/' || c.relforcerowsecurity || '/' || "
				+ "(SELECT COUNT(*) FROM pg_policy p WHERE p.polrelid = c.oid AND p.polname = 'shard_fence_tenant') "
				+ "|| '/' || (SELECT COUNT(*) FROM pg_trigger t WHERE t.tgrelid = c.oid AND t.tgname = "
				+ "'shard_fence_truncate_check') FROM pg_class c WHERE c.oid = '" + table + "'::regclass")) {
			rs.next();
			return rs.getString(1);
		}
	}

	@Test
	@DisplayName("a partition read directly shows only the bound tenant's rows, a write into it is fenced and a "
			+ "TRUNCATE of it is refused, as through the parent; also a partition created or attached after the start")
	void partitionsKeepTheIsolation() throws Exception {
		start(ROLE);
		// Partitions added while the application runs, by the owner: one created as a partition, one attached.
		try (Connection c = this.shard1.getConnection(); Statement s = c.createStatement()) {
			s.execute("CREATE TABLE event_x PARTITION OF event FOR VALUES IN ('x')");
			s.execute("CREATE TABLE event_y (LIKE event INCLUDING ALL)");
			s.execute("ALTER TABLE event ATTACH PARTITION event_y FOR VALUES IN ('y')");
			s.execute("GRANT SELECT, INSERT, UPDATE, DELETE ON event_x, event_y TO " + ROLE);
		}
		String[] kinds = { "a", "b", "c", "x", "y" };
		for (long id = 1; id <= 10; id++) {
			insertEvent(TENANT, id, kinds[(int) (id % kinds.length)]);
			insertEvent(NEIGHBOUR, id, kinds[(int) (id % kinds.length)]);
		}
		// Each statement through the driver's own connection, past the library's JDBC layer, in a transaction the
		// library began for the tenant: what the database enforces.
		for (String partition : List.of("event", "event_a", "event_b", "event_rest", "event_rest_0", "event_rest_1",
				"event_x", "event_y")) {
			inTransaction(TENANT, (c) -> {
				try (Statement s = ((Connection) c.unwrap(PGConnection.class)).createStatement();
						ResultSet rs = s.executeQuery("SELECT COUNT(*), COUNT(*) FILTER (WHERE tenant_id <> '" + TENANT
								+ "') FROM " + partition)) {
					rs.next();
					assertThat(rs.getLong(1)).as("rows read from %s", partition).isPositive();
					assertThat(rs.getLong(2)).as("other tenants' rows read from %s", partition).isZero();
				}
			});
			// Row-level security shows the statement no row of the neighbour (0 rows), or the fence refuses it.
			try {
				inTransaction(TENANT, (c) -> {
					try (Statement s = ((Connection) c.unwrap(PGConnection.class)).createStatement()) {
						assertThat(s.executeUpdate("UPDATE " + partition + " SET qty = qty + 1 WHERE tenant_id = '"
								+ NEIGHBOUR + "'")).as("the neighbour's rows updated through %s", partition).isZero();
					}
				});
			}
			catch (IllegalStateException refused) {
				assertThat(refused).cause().isInstanceOf(SQLException.class);
			}
			assertThatThrownBy(() -> inTransaction(TENANT, (c) -> {
				try (Statement s = ((Connection) c.unwrap(PGConnection.class)).createStatement()) {
					s.execute("TRUNCATE " + partition);
				}
			})).as("TRUNCATE %s", partition).cause().isInstanceOf(SQLException.class);
		}
		try (Connection c = this.shard1.getConnection(); Statement s = c.createStatement();
				ResultSet rs = s.executeQuery("SELECT tenant_id, COUNT(*), SUM(qty) FROM event GROUP BY tenant_id "
						+ "ORDER BY tenant_id")) {
			List<String> rows = new ArrayList<>();
			while (rs.next()) {
				rows.add(rs.getString(1) + "=" + rs.getLong(2) + "/" + rs.getLong(3));
			}
			assertThat(rows).as("every row as inserted").containsExactly(TENANT + "=10/10", NEIGHBOUR + "=10/10");
		}
	}

}
