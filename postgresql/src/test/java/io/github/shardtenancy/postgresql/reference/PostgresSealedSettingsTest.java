package io.github.shardtenancy.postgresql.reference;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.MoveResult;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.MoveStep;
import io.github.shardtenancy.ReferenceStatement;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import io.github.shardtenancy.testing.pg.ScratchPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.postgresql.PGConnection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The fence's settings ({@code shard_tenancy.*}) set by SQL of a tenant's transaction, on embedded PostgreSQL: with
 * {@code set_config} the SQL claims another tenant, the mover's or the maintenance mark, or a tenant the row trigger
 * accepts at once, and with the library's own functions it tries to switch tenant. What keeps it out is the seal the
 * library's functions set with the settings (a digest with a secret the application's role cannot read): row-level
 * security (a least-privilege role, strict start) shows nothing the seal does not cover, and the write check and the
 * TRUNCATE and DDL refusals (a superuser role, which row-level security does not apply to) refuse what it does not.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayName("Settings forged by a tenant's SQL on PostgreSQL: trusted only when sealed by the library's functions")
class PostgresSealedSettingsTest {

	private static final String ROLE = "pets_app";

	private ScratchPostgres postgres;

	private final List<HikariDataSource> pools = new ArrayList<>();

	/** The application's least-privilege role: row-level security applies. */
	private ShardTenancy tenancy;

	/** The server's superuser, as the library's own tests and many applications run: only the triggers apply. */
	private ShardTenancy superuser;

	@BeforeAll
	void start() throws SQLException {
		this.postgres = ScratchPostgres.start("sealed");
		HikariDataSource directory = this.postgres.createDatabase("directory", 2);
		PetShards.prepare(this.postgres, ROLE);
		ShardTenancyMigrations.migrateDirectory(directory);
		this.superuser = tenancy(directory, pool("shard1", this.postgres.server().user()),
				pool("shard2", this.postgres.server().user()), false);
		this.superuser.start();
		this.tenancy = tenancy(directory, pool("shard1", ROLE), pool("shard2", ROLE), true);
		this.tenancy.start();
		this.tenancy.referenceTables()
			.write(List.of(ReferenceStatement.of("INSERT INTO pet_type (id, name) VALUES (?, ?)", 1, "cat")));
		this.tenancy.admin().create("acme", "shard-1");
		this.tenancy.admin().create("globex", "shard-1");
		this.tenancy.admin().create("initech", "shard-1");
		insertPet(this.tenancy, "acme", "Tom");
		insertPet(this.tenancy, "globex", "Rex");
		insertPet(this.tenancy, "initech", "Milton");
	}

	@AfterAll
	void stop() {
		for (ShardTenancy started : new ShardTenancy[] { this.tenancy, this.superuser }) {
			if (started != null) {
				started.close();
			}
		}
		this.pools.forEach(HikariDataSource::close);
		if (this.postgres != null) {
			this.postgres.close();
		}
	}

	@Test
	@DisplayName("row-level security: a forged tenant, maintenance or mover mark shows no other tenant's row")
	void forgedSettingsReadNothing() {
		for (String forge : List.of("set_config('shard_tenancy.tenant', 'globex', true)",
				"set_config('shard_tenancy.role', 'maintenance', true)",
				"set_config('shard_tenancy.role', 'mover', true)",
				"set_config('shard_tenancy.tenant', 'globex', false)",
				"set_config('shard_tenancy.role', 'maintenance', false)")) {
			List<String> seen = inTenant(this.tenancy, "acme", (c) -> {
				query(c, "SELECT " + forge);
				return query(c, "SELECT name FROM pet ORDER BY name");
			});
			assertThat(seen).as(forge).doesNotContain("Rex", "Milton");
		}
		// Nothing stayed in the pooled session: the next transaction sees its own tenant's rows, as before.
		assertThat(inTenant(this.tenancy, "acme", (c) -> query(c, "SELECT name FROM pet"))).containsExactly("Tom");
		assertThat(inTenant(this.tenancy, "globex", (c) -> query(c, "SELECT name FROM pet"))).containsExactly("Rex");
	}

	@Test
	@DisplayName("write check: a forged fenced tenant, or a forged mover mark, is refused with SETTINGS_CHANGED; "
			+ "the other tenant's row stays")
	void forgedSettingsWriteNothing() throws SQLException {
		for (List<String> forged : List.of(List.of("set_config('shard_tenancy.fenced', 'globex', true)"),
				List.of("set_config('shard_tenancy.tenant', 'globex', true)",
						"set_config('shard_tenancy.role', 'mover', true)"),
				List.of("set_config('shard_tenancy.tenant', 'globex', true)",
						"set_config('shard_tenancy.fenced', 'globex', true)"))) {
			Throwable refused = catchThrowable(() -> inTenant(this.superuser, "acme", (c) -> {
				for (String forge : forged) {
					query(c, "SELECT " + forge);
				}
				return List.of(String.valueOf(update(c, "UPDATE pet SET name = 'mine' WHERE tenant_id = 'globex'")));
			}));
			assertThat(refused).as(forged.toString()).isNotNull();
			assertThat(sqlState(refused)).as(forged.toString()).isEqualTo("42501");
			assertThat(refused).hasStackTraceContaining("SETTINGS_CHANGED");
		}
		// Forged inside the writing statement itself, before its first row.
		Throwable refused = catchThrowable(() -> inTenant(this.superuser, "acme",
				(c) -> List.of(String.valueOf(update(c, "UPDATE pet SET name = 'mine' WHERE tenant_id = 'globex' "
						+ "AND set_config('shard_tenancy.fenced', 'globex', true) IS NOT NULL")))));
		assertThat(sqlState(refused)).isEqualTo("42501");
		assertThat(petNames("shard1", "globex")).containsExactly("Rex");
	}

	@Test
	@DisplayName("TRUNCATE and DDL after the SQL cleared the tenant setting are still refused (the fence lock tells)")
	void clearedTenantStillRefusesTruncateAndDdl() throws SQLException {
		for (String sql : List.of("TRUNCATE pet",
				"DO $$ BEGIN EXECUTE 'ALTER TABLE pet DISABLE TRIGGER shard_fence_write_check'; END $$",
				"DO $$ BEGIN EXECUTE 'ALTER TABLE pet NO FORCE ROW LEVEL SECURITY'; END $$")) {
			Throwable refused = catchThrowable(() -> inTenant(this.superuser, "acme", (c) -> {
				query(c, "SELECT set_config('shard_tenancy.tenant', '', true)");
				// Past the connection layer's reading of the text: the driver's own connection.
				try (Statement s = ((Connection) c.unwrap(PGConnection.class)).createStatement()) {
					s.execute(sql);
				}
				return List.of();
			}));
			assertThat(sqlState(refused)).as(sql).isEqualTo("42501");
			assertThat(refused).as(sql).hasStackTraceContaining("_REFUSED");
		}
		assertThat(petNames("shard1", "globex")).containsExactly("Rex");
		try (Connection c = connect("shard1"); Statement s = c.createStatement();
				ResultSet rs = s.executeQuery("SELECT (SELECT tgenabled FROM pg_trigger WHERE tgrelid = 'pet'::regclass "
						+ "AND tgname = 'shard_fence_write_check'), relforcerowsecurity FROM pg_class "
						+ "WHERE oid = 'pet'::regclass")) {
			rs.next();
			assertThat(rs.getString(1)).isEqualTo("O");
			assertThat(rs.getBoolean(2)).isTrue();
		}
	}

	@Test
	@DisplayName("the library's own functions called by a tenant's SQL: another tenant's begin is refused with "
			+ "TENANT_SWITCHED, and so are the maintenance and the mover mark, also once the SQL cleared the settings")
	void libraryFunctionsCannotSwitchTenant() {
		List<String> calls = new ArrayList<>();
		// With the seal cleared too, another tenant's begin is not told from a first one: the limit docs/security.md
		// names (a token per connection would close it).
		calls.add("shard_fence_begin('globex', 9000000000)");
		for (String mark : List.of("shard_fence_maintenance()", "shard_fence_mover('globex')")) {
			calls.add(mark);
			calls.add("set_config('shard_tenancy.tenant', '', true), set_config('shard_tenancy.seal', '', true), "
					+ mark);
		}
		for (String call : calls) {
			Throwable refused = catchThrowable(() -> inTenant(this.tenancy, "acme", (c) -> {
				query(c, "SELECT " + call);
				return query(c, "SELECT name FROM pet");
			}));
			assertThat(sqlState(refused)).as(call).isEqualTo("42501");
			assertThat(refused).as(call).hasStackTraceContaining("TENANT_SWITCHED");
		}
	}

	@Test
	@DisplayName("a search path that lists, before pg_catalog, a schema whose functions answer what the fence asks "
			+ "(current_setting, shard_fence_sealed, shard_fence_check_write, shard_fence_refuse): writes and TRUNCATE "
			+ "are still refused, the other tenant's rows stay out of reach")
	void searchPathCannotStandInForTheFence() throws SQLException {
		for (String database : PetShards.DATABASES) {
			try (Connection c = connect(database); Statement s = c.createStatement()) {
				s.execute("CREATE SCHEMA IF NOT EXISTS lure");
				s.execute("GRANT USAGE ON SCHEMA lure TO " + ROLE);
				s.execute("CREATE OR REPLACE FUNCTION lure.current_setting(text, boolean) RETURNS text LANGUAGE sql "
						+ "AS 'SELECT ''globex''::text'");
				s.execute("CREATE OR REPLACE FUNCTION lure.shard_fence_sealed() RETURNS boolean LANGUAGE sql "
						+ "AS 'SELECT true'");
				s.execute("CREATE OR REPLACE FUNCTION lure.shard_fence_check_write(text, text, text, text, text) "
						+ "RETURNS void LANGUAGE sql AS 'SELECT'");
				s.execute("CREATE OR REPLACE FUNCTION lure.shard_fence_refuse(text) RETURNS void LANGUAGE sql "
						+ "AS 'SELECT'");
			}
		}
		String path = "SELECT set_config('search_path', 'lure, pg_catalog, public', true)";
		Throwable refused = catchThrowable(() -> inTenant(this.superuser, "acme", (c) -> {
			query(c, path);
			return List.of(String.valueOf(update(c, "UPDATE pet SET name = 'mine' WHERE tenant_id = 'globex'")));
		}));
		assertThat(sqlState(refused)).isNotNull();
		Throwable truncate = catchThrowable(() -> inTenant(this.superuser, "acme", (c) -> {
			query(c, path);
			try (Statement s = ((Connection) c.unwrap(PGConnection.class)).createStatement()) {
				s.execute("TRUNCATE pet");
			}
			return List.of();
		}));
		assertThat(sqlState(truncate)).isEqualTo("42501");
		assertThat(petNames("shard1", "globex")).containsExactly("Rex");
		assertThat(inTenant(this.tenancy, "acme", (c) -> {
			query(c, path);
			return query(c, "SELECT name FROM pet ORDER BY name");
		})).doesNotContain("Rex", "Milton");
	}

	@Test
	@DisplayName("the secret and the seal function are out of the application role's reach")
	void secretUnreadable() {
		for (String sql : List.of("SELECT secret FROM shard_fence_key", "SELECT shard_fence_seal()")) {
			Throwable refused = catchThrowable(() -> inTenant(this.tenancy, "acme", (c) -> query(c, sql)));
			assertThat(sqlState(refused)).as(sql).isEqualTo("42501");
		}
	}

	@Test
	@DisplayName("honest work: each tenant reads and writes its own rows, and a move (mover and maintenance marks, "
			+ "under row-level security) carries them")
	void honestWork() throws SQLException {
		insertPet(this.tenancy, "initech", "Peter");
		assertThat(inTenant(this.tenancy, "initech", (c) -> query(c, "SELECT name FROM pet ORDER BY name")))
			.containsExactly("Milton", "Peter");
		assertThat(inTenant(this.tenancy, "initech",
				(c) -> List.of(String.valueOf(update(c, "UPDATE pet SET name = name || '!'")))))
			.containsExactly("2");
		MoveResult moved = this.tenancy.mover().moveAndWait("initech", "shard-2", MoveSettings.defaults());
		assertThat(moved.step()).isEqualTo(MoveStep.DONE);
		assertThat(petNames("shard2", "initech")).containsExactly("Milton!", "Peter!");
		assertThat(inTenant(this.tenancy, "initech", (c) -> query(c, "SELECT name FROM pet ORDER BY name")))
			.containsExactly("Milton!", "Peter!");
	}

	private interface Work {

		List<String> run(Connection connection) throws SQLException;

	}

	/** Runs {@code work} in one transaction of {@code tenant} on a connection of the library, committed at the end. */
	private static List<String> inTenant(ShardTenancy tenancy, String tenant, Work work) {
		List<List<String>> result = new ArrayList<>();
		TenantContext.runAs(tenant, () -> {
			try (Connection c = tenancy.dataSource().getConnection()) {
				c.setAutoCommit(false);
				try {
					result.add(work.run(c));
					c.commit();
				}
				catch (SQLException | RuntimeException ex) {
					c.rollback();
					throw ex;
				}
			}
			catch (SQLException ex) {
				throw new IllegalStateException(ex);
			}
		});
		return result.get(0);
	}

	private static List<String> query(Connection c, String sql) throws SQLException {
		return PetShards.firstColumn(c, sql);
	}

	private static int update(Connection c, String sql) throws SQLException {
		try (PreparedStatement ps = c.prepareStatement(sql)) {
			return ps.executeUpdate();
		}
	}

	private static String sqlState(Throwable thrown) {
		for (Throwable t = thrown; t != null; t = t.getCause()) {
			if (t instanceof SQLException sql && sql.getSQLState() != null) {
				return sql.getSQLState();
			}
		}
		return null;
	}

	private static void insertPet(ShardTenancy tenancy, String tenant, String name) {
		inTenant(tenancy, tenant, (c) -> {
			try (PreparedStatement ps = c
				.prepareStatement("INSERT INTO pet (id, tenant_id, name, type_id) VALUES (?, ?, ?, 1)")) {
				ps.setObject(1, UUID.randomUUID());
				ps.setString(2, tenant);
				ps.setString(3, name);
				assertThat(ps.executeUpdate()).isEqualTo(1);
			}
			return List.of();
		});
	}

	/** The tenant's pet names on a shard database, read as the server's superuser (past row-level security). */
	private List<String> petNames(String database, String tenant) throws SQLException {
		try (Connection c = connect(database)) {
			return PetShards.firstColumn(c, "SELECT name FROM pet WHERE tenant_id = ? ORDER BY name", tenant);
		}
	}

	private static ShardTenancy tenancy(DataSource directory, DataSource shard1, DataSource shard2, boolean strict) {
		return PetShards.tenancy(directory, shard1, shard2, strict, "sealed@pg");
	}

	private Connection connect(String database) throws SQLException {
		return PetShards.superuser(this.postgres, database);
	}

	private HikariDataSource pool(String database, String user) {
		HikariDataSource pool = PetShards.pool(this.postgres, database, user, 2);
		this.pools.add(pool);
		return pool;
	}

}
