package io.github.shardtenancy.postgresql.reference;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.NoTenantBoundException;
import io.github.shardtenancy.ReferenceStatement;
import io.github.shardtenancy.ShardQueryResult;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import io.github.shardtenancy.testing.pg.ScratchPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Work with no tenant bound, and queries across shards, on embedded PostgreSQL with a shard role that is neither a
 * superuser nor the tables' owner (the shards migrated by the server's superuser): SQL shaped to get past the
 * library's reading of the text. What keeps it out is the database: a read-only transaction also in auto-commit mode,
 * one statement as pgjdbc splits the text (PostgreSQL refuses a second command in one {@code Parse}), and nothing a
 * statement took for the session (advisory locks, the library's variables) left on the pooled connection.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayName("No tenant bound and queries across shards on PostgreSQL: read-only in the database, one statement as "
		+ "the driver reads it, nothing left in the pooled session")
class PostgresNoTenantIsolationTest {

	private static final String ROLE = "pets_app";

	/** shard_fence_begin's advisory lock key space (shard_fence_lock). */
	private static final int FENCE_LOCK_SPACE = 1936225382;

	private ScratchPostgres postgres;

	private final List<HikariDataSource> pools = new ArrayList<>();

	private ShardTenancy tenancy;

	@BeforeAll
	void start() throws SQLException {
		this.postgres = ScratchPostgres.start("no-tenant");
		HikariDataSource directory = this.postgres.createDatabase("directory", 2);
		PetShards.prepare(this.postgres, ROLE);
		for (String shard : PetShards.DATABASES) {
			try (Connection c = superuser(shard); Statement s = c.createStatement()) {
				// A function that writes, called in a query's select list: the reading of table names cannot see it.
				s.execute("CREATE FUNCTION forget_dogs() RETURNS int LANGUAGE sql AS "
						+ "'DELETE FROM pet_type WHERE id = 2 RETURNING 1'");
				// A reporting view of the application, owned by the superuser that migrated the shard (so it reads
				// past row-level security), granted to the application's role; and a function reading it, which the
				// reading of table names cannot see into.
				s.execute("CREATE VIEW pet_report AS SELECT tenant_id, name FROM pet");
				s.execute("GRANT SELECT ON pet_report TO " + ROLE);
				s.execute("CREATE FUNCTION every_pet() RETURNS text LANGUAGE sql AS "
						+ "'SELECT string_agg(name, '','' ORDER BY name) FROM pet_report'");
				s.execute("CREATE FUNCTION every_pet_direct() RETURNS text LANGUAGE sql AS "
						+ "'SELECT string_agg(name, '','' ORDER BY name) FROM pet'");
			}
		}
		ShardTenancyMigrations.migrateDirectory(directory);
		// The owner installs the fence on the tenant table once (trigger functions, row-level security); the
		// application's role then starts with what it was granted.
		try (HikariDataSource owner1 = pool("shard1", this.postgres.server().user());
				HikariDataSource owner2 = pool("shard2", this.postgres.server().user());
				ShardTenancy owners = tenancy(directory, owner1, owner2, false)) {
			owners.start();
		}
		// Strict: the start is refused if the role has a privilege it does not need (it has none).
		this.tenancy = tenancy(directory, application("shard1"), application("shard2"), true);
		this.tenancy.start();
		this.tenancy.referenceTables()
			.write(List.of(ReferenceStatement.of("INSERT INTO pet_type (id, name) VALUES (?, ?)", 1, "cat"),
					ReferenceStatement.of("INSERT INTO pet_type (id, name) VALUES (?, ?)", 2, "dog")));
		this.tenancy.admin().create("acme", "shard-1");
		this.tenancy.admin().create("globex", "shard-1");
		insertPet("acme", "Tom");
		insertPet("globex", "Rex");
	}

	@AfterAll
	void stop() {
		if (this.tenancy != null) {
			this.tenancy.close();
		}
		this.pools.forEach(HikariDataSource::close);
		if (this.postgres != null) {
			this.postgres.close();
		}
	}

	@Test
	@DisplayName("no tenant, auto-commit: a writing function in a reference read is refused by the read-only "
			+ "transaction (25006), a second statement by its count; the reference rows stay")
	void noTenantReadOnlyInAutoCommit() throws SQLException {
		try (Connection c = this.tenancy.dataSource().getConnection()) {
			assertThat(c.getAutoCommit()).isTrue();
			try (PreparedStatement ps = c.prepareStatement("SELECT forget_dogs() FROM pet_type WHERE id = 1")) {
				assertThatThrownBy(ps::executeQuery).isInstanceOf(SQLException.class)
					.satisfies((ex) -> assertThat(((SQLException) ex).getSQLState()).isEqualTo("25006"));
			}
		}
		for (String sql : List.of("SELECT 1 FROM pet_type; DELETE FROM pet_type WHERE id = 2",
				"SELECT name FROM pet_type; COMMIT; DELETE FROM pet_type WHERE id = 2")) {
			try (Connection c = this.tenancy.dataSource().getConnection()) {
				assertThatThrownBy(() -> c.prepareStatement(sql)).as(sql)
					.isInstanceOf(NoTenantBoundException.class)
					.hasMessageContaining("one statement each");
				try (Statement s = c.createStatement()) {
					assertThatThrownBy(() -> s.execute(sql)).as(sql).isInstanceOf(NoTenantBoundException.class);
				}
			}
		}
		assertThat(typeNames("shard1")).containsExactly("cat", "dog");
		assertThat(typeNames("shard2")).containsExactly("cat", "dog");
		// An ordinary reference read still works, in auto-commit and in a transaction of the code's own.
		try (Connection c = this.tenancy.dataSource().getConnection()) {
			assertThat(names(c, "SELECT name FROM pet_type ORDER BY id")).containsExactly("cat", "dog");
			c.setAutoCommit(false);
			assertThat(names(c, "SELECT name FROM pet_type WHERE id = 1")).containsExactly("cat");
			c.commit();
			c.setAutoCommit(true);
			c.setReadOnly(false);
			assertThat(c.isReadOnly()).isTrue();
			try (PreparedStatement ps = c.prepareStatement("SELECT forget_dogs() FROM pet_type WHERE id = 1")) {
				assertThatThrownBy(ps::executeQuery).isInstanceOf(SQLException.class)
					.satisfies((ex) -> assertThat(((SQLException) ex).getSQLState()).isEqualTo("25006"));
			}
		}
	}

	@Test
	@DisplayName("no tenant: SQL shaped to get past the reading of table names reads no tenant's row (refused, or "
			+ "filtered by row-level security)")
	void noTenantReadsNoTenantRows() throws SQLException {
		for (String sql : List.of(
				"SELECT p.name FROM (SELECT id FROM pet_type WHERE name = 'cat') t, pet p WHERE p.type_id = t.id",
				"SELECT p.name FROM (TABLE pet) p", "SELECT p.name FROM pet_type t(a, b), pet p",
				"SELECT t.name FROM pet_type t WHERE EXISTS (TABLE pet)",
				"SELECT (SELECT string_agg(name, ',') FROM pet) FROM pet_type WHERE id = 1")) {
			try (Connection c = this.tenancy.dataSource().getConnection()) {
				List<String> rows;
				try {
					rows = names(c, sql);
				}
				catch (NoTenantBoundException refused) {
					continue;
				}
				assertThat(rows).as(sql).allSatisfy((row) -> assertThat(row).isNull());
			}
		}
	}

	@Test
	@DisplayName("no tenant: SQL the reading of table names lets through (a function, in a select list, reading a "
			+ "view past row-level security or a tenant table) is refused by the database as the reference role "
			+ "and reaches the code as NoTenantBoundException; reference reads run as that role")
	void noTenantRunsAsTheReferenceRole() throws SQLException {
		for (String sql : List.of("SELECT every_pet() FROM pet_type WHERE id = 1",
				"SELECT every_pet_direct() FROM pet_type WHERE id = 1")) {
			for (boolean autoCommit : List.of(true, false)) {
				try (Connection c = this.tenancy.dataSource().getConnection()) {
					c.setAutoCommit(autoCommit);
					try (PreparedStatement ps = c.prepareStatement(sql)) {
						assertThatThrownBy(ps::executeQuery).as(sql)
							.isInstanceOf(NoTenantBoundException.class)
							.hasMessageContaining("shard_tenancy_reference")
							.hasMessageContaining("permission denied")
							.cause()
							.satisfies((ex) -> assertThat(((SQLException) ex).getSQLState()).isEqualTo("42501"));
					}
					if (!autoCommit) {
						// The code's own transaction failed, as any failed statement fails it.
						c.rollback();
					}
					try (Statement st = c.createStatement()) {
						assertThatThrownBy(() -> st.executeQuery(sql)).as(sql)
							.isInstanceOf(NoTenantBoundException.class);
					}
					if (!autoCommit) {
						c.rollback();
					}
					// The connection serves the next statement.
					assertThat(names(c, "SELECT name FROM pet_type WHERE id = 1")).containsExactly("cat");
				}
			}
		}
		try (Connection c = this.tenancy.dataSource().getConnection()) {
			assertThat(names(c, "SELECT current_user FROM pet_type WHERE id = 1"))
				.containsExactly(PetShards.REFERENCE_ROLE);
			assertThat(names(c, "SELECT name FROM pet_type ORDER BY id")).containsExactly("cat", "dog");
		}
		// The view does show every tenant's pets to the application's role itself: what the role keeps out.
		try (HikariDataSource own = pool("shard1", ROLE); Connection c = own.getConnection()) {
			assertThat(names(c, "SELECT every_pet()")).containsExactly("Rex,Tom");
		}
	}

	@Test
	@DisplayName("no tenant: what a statement set or locked for the session is gone for the next borrower")
	void noTenantLeavesNothingInTheSession() throws Exception {
		// Pool size 1: the next borrow gets the same server session.
		try (Connection c = this.tenancy.dataSource().getConnection()) {
			c.setAutoCommit(false);
			assertThat(names(c, "SELECT set_config('shard_tenancy.role', 'maintenance', false) FROM pet_type "
					+ "WHERE id = 1")).containsExactly("maintenance");
			assertThat(names(c, "SELECT pg_advisory_lock(" + FENCE_LOCK_SPACE + ", hashtext('acme'))::text "
					+ "FROM pet_type WHERE id = 1")).hasSize(1);
			c.commit();
		}
		assertThat(advisoryLocks()).isZero();
		try (Connection c = this.tenancy.dataSource().getConnection()) {
			assertThat(names(c, "SELECT coalesce(current_setting('shard_tenancy.role', true), '') FROM pet_type "
					+ "WHERE id = 1")).containsExactly("");
		}
		// The tenant's transactions are not refused as frozen by a lock left behind.
		insertPet("acme", "Felix");
	}

	@Test
	@DisplayName("queryAllShards: E'' escapes and dollar quoting cannot hide a second statement; a ';' inside dollar "
			+ "quotes is one statement; advisory locks taken by the query are released")
	void queryAllShardsOneStatement() throws Exception {
		for (String sql : List.of("SELECT E'\\'' AS x; COMMIT; DELETE FROM pet_type WHERE id = 2 --'",
				"SELECT $q$'$q$ AS x; COMMIT; DELETE FROM pet_type WHERE id = 2 --'",
				"SELECT 1 AS x; COMMIT; UPDATE pet SET name = 'mine' WHERE tenant_id = 'globex'")) {
			assertThatThrownBy(() -> this.tenancy.tenantTasks()
				.queryAllShards(sql, List.of(), (shard, row) -> row.getString(1), Duration.ofSeconds(10)))
				.as(sql)
				.isInstanceOf(IllegalArgumentException.class)
				.hasMessageContaining("one statement");
		}
		assertThat(typeNames("shard1")).containsExactly("cat", "dog");
		assertThat(typeNames("shard2")).containsExactly("cat", "dog");
		assertThat(this.tenancy.tenantTasks()
			.queryAllShards("SELECT name FROM pet WHERE tenant_id = 'globex'", List.of(),
					(shard, row) -> row.getString(1), Duration.ofSeconds(10))
			.rows()).containsExactly("Rex");
		ShardQueryResult<String> dollar = this.tenancy.tenantTasks()
			.queryAllShards("SELECT $q$;$q$ AS x", List.of(), (shard, row) -> row.getString(1),
					Duration.ofSeconds(10));
		assertThat(dollar.rows()).containsExactly(";", ";");
		ShardQueryResult<String> locked = this.tenancy.tenantTasks()
			.queryAllShards("SELECT pg_advisory_lock(" + FENCE_LOCK_SPACE + ", hashtext('acme'))::text", List.of(),
					(shard, row) -> row.getString(1), Duration.ofSeconds(10));
		assertThat(locked.complete()).isTrue();
		assertThat(advisoryLocks()).isZero();
		insertPet("acme", "Garfield");
	}

	private static ShardTenancy tenancy(DataSource directory, DataSource shard1, DataSource shard2, boolean strict) {
		return PetShards.tenancy(directory, shard1, shard2, strict, "no-tenant@pg");
	}

	private void insertPet(String tenant, String name) {
		TenantContext.runAs(tenant, () -> {
			try (Connection c = this.tenancy.dataSource().getConnection();
					PreparedStatement ps = c
						.prepareStatement("INSERT INTO pet (id, tenant_id, name, type_id) VALUES (?, ?, ?, 1)")) {
				ps.setObject(1, UUID.randomUUID());
				ps.setString(2, tenant);
				ps.setString(3, name);
				assertThat(ps.executeUpdate()).isEqualTo(1);
			}
			catch (SQLException ex) {
				throw new IllegalStateException(ex);
			}
		});
	}

	/** @return advisory locks held by any session of the server (observed from a superuser connection) */
	private long advisoryLocks() throws SQLException {
		try (Connection c = superuser("postgres"); Statement s = c.createStatement();
				ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'")) {
			rs.next();
			return rs.getLong(1);
		}
	}

	private List<String> typeNames(String database) throws SQLException {
		try (Connection c = superuser(database)) {
			return names(c, "SELECT name FROM pet_type ORDER BY id");
		}
	}

	private static List<String> names(Connection c, String sql) throws SQLException {
		return PetShards.firstColumn(c, sql);
	}

	private Connection superuser(String database) throws SQLException {
		return PetShards.superuser(this.postgres, database);
	}

	private HikariDataSource application(String database) {
		HikariDataSource pool = pool(database, ROLE);
		this.pools.add(pool);
		return pool;
	}

	private HikariDataSource pool(String database, String user) {
		return PetShards.pool(this.postgres, database, user, 1);
	}

}
