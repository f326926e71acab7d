package io.github.shardtenancy.it.security;

import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.internal.Internals;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.ShardTenancyConfigurationException;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.ReconciliationReport;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.TenantMover;
import io.github.shardtenancy.internal.reconcile.Reconciler;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import io.github.shardtenancy.internal.topology.Topology;
import io.github.shardtenancy.it.security.rls.RlsApplication;
import io.github.shardtenancy.it.security.rls.RlsNoteRepository;
import io.github.shardtenancy.it.security.rls.RlsNoteService;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import io.github.shardtenancy.testing.pg.PostgresCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * What a PostgreSQL shard refuses across tenants, through a Spring Boot / Spring Data JPA application
 * ({@link RlsApplication}) whose shard connections use a role that is neither a superuser nor has
 * {@code BYPASSRLS} (created here on every shard server, owning the test's tenant table as an application's schema
 * role would): a {@code TRUNCATE} or DDL of a tenant-bound transaction is refused with SQLSTATE 42501 and not retried,
 * and a native query without a tenant predicate returns only the bound tenant's rows (row-level security). The
 * library's own work across tenants (the moves, their verification and clean-up, reconciliation) keeps reading every
 * row under its explicit marks. Started as the superuser, the application warns, or refuses to start when asked to.
 * The application sets no {@code shard-tenancy.fence.row-level-security}: all of this holds by default.
 */
@DisplayName("PostgreSQL: the shard refuses TRUNCATE, DDL and reads across tenants")
@ExtendWith(OutputCaptureExtension.class)
class PostgresRowSecurityTest {

	static final String ROLE = "shard_tenancy_it_app";

	static final String TABLE = "pg_rls_note";

	static PostgresCluster cluster;

	static ConfigurableApplicationContext context;

	static RlsNoteService service;

	static JdbcTemplate jdbc;

	static TransactionTemplate transactions;

	@BeforeAll
	static void start() throws SQLException {
		cluster = PostgresCluster.shared();
		for (String shard : PostgresCluster.SHARD_IDS) {
			try (HikariDataSource ds = cluster.pool(cluster.shard(shard), 2, "rls-setup-" + shard)) {
				ShardTenancyMigrations.migrateShard(ds, shard, List.of("db/it-pg/pg-rls.xml"));
				try (Topology topology = new Topology(); Connection c = ds.getConnection();
						Statement st = c.createStatement()) {
					st.execute("DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '" + ROLE + "') "
							+ "THEN CREATE ROLE " + ROLE + " LOGIN PASSWORD '" + ROLE + "' NOSUPERUSER NOBYPASSRLS; "
							+ "END IF; END $$");
					st.execute("GRANT ALL ON ALL TABLES IN SCHEMA public TO " + ROLE);
					st.execute("GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO " + ROLE);
					st.execute("GRANT CREATE ON SCHEMA public TO " + ROLE);
					st.execute("ALTER TABLE " + TABLE + " OWNER TO " + ROLE);
					topology.addShard(shard, (javax.sql.DataSource) ds).dialect().installWriteCheck(c, TABLE,
							"tenant_id");
					st.execute("ALTER FUNCTION shard_fence_row_" + TABLE + "() OWNER TO " + ROLE);
				}
			}
		}
		context = start(ROLE, ROLE);
		service = context.getBean(RlsNoteService.class);
		jdbc = context.getBean(JdbcTemplate.class);
		transactions = context.getBean(TransactionTemplate.class);
	}

	@AfterAll
	static void stop() {
		if (context != null) {
			context.close();
		}
	}

	static ConfigurableApplicationContext start(String user, String password, String... extra) {
		List<String> properties = new ArrayList<>(List.of(
				"shard-tenancy.directory.url=" + cluster.directory().jdbcUrl(),
				"shard-tenancy.directory.username=" + cluster.directory().user(),
				"shard-tenancy.directory.password=" + cluster.directory().password(),
				"shard-tenancy.liquibase.enabled=false",
				"shard-tenancy.sync.interval=1h",
				"shard-tenancy.sync.listen=false",
				"shard-tenancy.retry.max-delay=20ms",
				"shard-tenancy.move.clean-delay=0s",
				"shard-tenancy.actor=rls-it",
				"spring.liquibase.enabled=false",
				"spring.jmx.enabled=false"));
		for (String shard : PostgresCluster.SHARD_IDS) {
			properties.add("shard-tenancy.shards." + shard + ".url=" + cluster.shard(shard).jdbcUrl());
			properties.add("shard-tenancy.shards." + shard + ".username=" + user);
			properties.add("shard-tenancy.shards." + shard + ".password=" + password);
		}
		properties.addAll(List.of(extra));
		return new SpringApplicationBuilder(RlsApplication.class).web(WebApplicationType.NONE)
			.properties(properties.toArray(String[]::new))
			.run();
	}

	@BeforeEach
	void reset() {
		service.reset();
	}

	/** A new tenant on the shard, with the given notes, written through the application. */
	static String tenantWithNotes(String prefix, String shard, String... bodies) {
		String tenant = PostgresCluster.tenant(prefix);
		context.getBean(TenantAdmin.class).create(tenant, shard);
		TenantContext.runAs(tenant, () -> service.add(bodies));
		service.reset();
		return tenant;
	}

	/** The tenant's rows on a shard, counted as the superuser (whom row-level security does not apply to). */
	static long rows(String shard, String tenant) throws SQLException {
		try (HikariDataSource ds = cluster.pool(cluster.shard(shard), 1, "rls-count");
				Connection c = ds.getConnection();
				PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM " + TABLE + " WHERE tenant_id = ?")) {
			ps.setString(1, tenant);
			try (ResultSet rs = ps.executeQuery()) {
				rs.next();
				return rs.getLong(1);
			}
		}
	}

	static boolean hasColumn(String shard, String column) throws SQLException {
		try (HikariDataSource ds = cluster.pool(cluster.shard(shard), 1, "rls-columns");
				Connection c = ds.getConnection();
				PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM information_schema.columns "
						+ "WHERE table_name = ? AND column_name = ?")) {
			ps.setString(1, TABLE);
			ps.setString(2, column);
			try (ResultSet rs = ps.executeQuery()) {
				rs.next();
				return rs.getLong(1) > 0;
			}
		}
	}

	/** The refusal in the failure's cause chain: SQLSTATE 42501, in the fence's format, naming tenant and shard. */
	static void assertRefused(Throwable failure, String tenant, String reason) {
		assertThat(failure).as("refusal").isNotNull();
		Optional<SQLException> sql = causes(failure).stream()
			.filter(t -> t instanceof SQLException s && "42501".equals(s.getSQLState()))
			.map(SQLException.class::cast)
			.findFirst();
		assertThat(sql).as("SQLSTATE 42501 in %s", failure).get().satisfies(ex -> assertThat(ex.getMessage())
			.contains("shard fence: tenant '" + tenant + "' rejected on shard 'shard-1': " + reason));
	}

	static List<Throwable> causes(Throwable failure) {
		List<Throwable> chain = new ArrayList<>();
		for (Throwable t = failure; t != null && !chain.contains(t); t = t.getCause()) {
			chain.add(t);
		}
		return chain;
	}

	@Test
	@DisplayName("a TRUNCATE the connection layer cannot see (dynamic SQL through the EntityManager), bound to t2, is refused by the shard, not retried; t1's rows stay")
	void truncateThroughEntityManagerIsRefused() throws Exception {
		String t1 = tenantWithNotes("rls-trunc-a", "shard-1", "a1", "a2");
		String t2 = tenantWithNotes("rls-trunc-b", "shard-1", "b1");

		Throwable failure = catchThrowable(() -> TenantContext.runAs(t2, () -> service.truncateNative()));

		assertRefused(failure, t2, "TRUNCATE_REFUSED");
		assertThat(service.runs()).as("runs (no retry)").isEqualTo(1);
		assertThat(rows("shard-1", t1)).isEqualTo(2);
		assertThat(rows("shard-1", t2)).isEqualTo(1);
	}

	@Test
	@DisplayName("a TRUNCATE the connection layer cannot see (dynamic SQL through JdbcTemplate in a TransactionTemplate), bound to t2, is refused by the shard; t1's rows stay")
	void truncateThroughJdbcTemplateIsRefused() throws Exception {
		String t1 = tenantWithNotes("rls-trunc-c", "shard-1", "c1");
		String t2 = tenantWithNotes("rls-trunc-d", "shard-1", "d1");

		Throwable failure = catchThrowable(() -> TenantContext.runAs(t2,
				() -> transactions.executeWithoutResult(
						status -> jdbc.execute("DO $$ BEGIN EXECUTE 'TRUNCATE pg_rls_note'; END $$"))));

		assertRefused(failure, t2, "TRUNCATE_REFUSED");
		assertThat(rows("shard-1", t1)).isEqualTo(1);
		assertThat(rows("shard-1", t2)).isEqualTo(1);
	}

	@Test
	@DisplayName("DDL the connection layer cannot see (dynamic ALTER TABLE natively, CREATE INDEX through JdbcTemplate) in a tenant-bound transaction is refused by the shard")
	void ddlIsRefused() throws Exception {
		String t2 = tenantWithNotes("rls-ddl", "shard-1", "x");

		Throwable alter = catchThrowable(() -> TenantContext.runAs(t2, () -> service.alterNative()));
		Throwable index = catchThrowable(() -> TenantContext.runAs(t2, () -> service.createIndexWithJdbc()));

		assertRefused(alter, t2, "DDL_REFUSED");
		assertRefused(index, t2, "DDL_REFUSED");
		assertThat(service.runs()).as("runs (no retry)").isEqualTo(2);
		assertThat(hasColumn("shard-1", "extra")).isFalse();
	}

	@Test
	@DisplayName("a native SELECT without tenant predicate, bound to t2, returns only t2's rows")
	void nativeSelectSeesOnlyTheBoundTenant() throws Exception {
		String t1 = tenantWithNotes("rls-read-a", "shard-1", "a-secret-1", "a-secret-2");
		String t2 = tenantWithNotes("rls-read-b", "shard-1", "b-own");

		List<String> bodies = TenantContext.callAs(t2, () -> service.bodiesNative());
		long jdbcCount = TenantContext.callAs(t2, () -> service.countWithJdbc());
		long repositoryCount = TenantContext.callAs(t2,
				() -> transactions.execute(status -> context.getBean(RlsNoteRepository.class).countNative()));

		assertThat(bodies).containsExactly("b-own");
		assertThat(jdbcCount).isEqualTo(1);
		assertThat(repositoryCount).isEqualTo(1);
		assertThat(rows("shard-1", t1)).isEqualTo(2);
	}

	@Test
	@DisplayName("with no row-level-security property, plain JDBC bound to t2 (JdbcTemplate in a transaction and in auto-commit) and a native query return only t2's rows")
	void plainJdbcSeesOnlyTheBoundTenantByDefault() throws Exception {
		String t1 = tenantWithNotes("rls-jdbc-a", "shard-1", "a-secret-1", "a-secret-2");
		String t2 = tenantWithNotes("rls-jdbc-b", "shard-1", "b-own-1", "b-own-2", "b-own-3");
		assertThat(context.getEnvironment().getProperty("shard-tenancy.fence.row-level-security")).as("property")
			.isNull();

		List<String> inTransaction = TenantContext.callAs(t2, () -> transactions
			.execute(status -> jdbc.queryForList("SELECT * FROM " + TABLE + " ORDER BY body"))
			.stream()
			.map(row -> row.get("tenant_id") + "/" + row.get("body"))
			.toList());
		Long countInTransaction = TenantContext.callAs(t2,
				() -> transactions.execute(status -> jdbc.queryForObject("SELECT count(*) FROM " + TABLE, Long.class)));
		List<String> autoCommit = TenantContext.callAs(t2,
				() -> jdbc.queryForList("SELECT body FROM " + TABLE + " ORDER BY body", String.class));
		Long countAutoCommit = TenantContext.callAs(t2,
				() -> jdbc.queryForObject("SELECT count(*) FROM " + TABLE, Long.class));
		List<String> nativeQuery = TenantContext.callAs(t2, () -> service.bodiesNative());
		long nativeCount = TenantContext.callAs(t2,
				() -> transactions.execute(status -> context.getBean(RlsNoteRepository.class).countNative()));
		List<String> otherTenant = TenantContext.callAs(t1,
				() -> jdbc.queryForList("SELECT body FROM " + TABLE + " ORDER BY body", String.class));

		assertThat(inTransaction).containsExactly(t2 + "/b-own-1", t2 + "/b-own-2", t2 + "/b-own-3");
		assertThat(countInTransaction).isEqualTo(3);
		assertThat(autoCommit).containsExactly("b-own-1", "b-own-2", "b-own-3");
		assertThat(countAutoCommit).isEqualTo(3);
		assertThat(nativeQuery).containsExactly("b-own-1", "b-own-2", "b-own-3");
		assertThat(nativeCount).isEqualTo(3);
		assertThat(otherTenant).containsExactly("a-secret-1", "a-secret-2");
		assertThat(rows("shard-1", t1)).as("t1's rows, counted as the superuser").isEqualTo(2);
	}

	@Test
	@DisplayName("the policy lets the planner use the tenant index for a query without tenant predicate")
	void policyUsesTheTenantIndex() throws Exception {
		String t2 = tenantWithNotes("rls-plan", "shard-1", "p");

		String plan = TenantContext.callAs(t2, () -> service.planWithoutSequentialScans());

		assertThat(plan).contains("pg_rls_note_tenant").doesNotContain("Seq Scan");
	}

	@Test
	@DisplayName("the online mover (copy, catch-up, verification, clean-up) and the basic mover work under row-level security")
	void moversWorkUnderRowLevelSecurity() throws Exception {
		String moving = tenantWithNotes("rls-move", "shard-1", "m1", "m2", "m3");
		String staying = tenantWithNotes("rls-stay", "shard-1", "s1");
		TenantMover mover = context.getBean(TenantMover.class);

		mover.moveAndWait(moving, "shard-2", MoveSettings.defaults());

		assertThat(rows("shard-2", moving)).isEqualTo(3);
		assertThat(rows("shard-1", moving)).as("cleaned on the source").isZero();
		assertThat(rows("shard-1", staying)).isEqualTo(1);
		assertThat(TenantContext.callAs(moving, () -> service.bodiesNative())).containsExactly("m1", "m2", "m3");

		context.getBean(TenantAdmin.class).move(moving, "shard-3");

		assertThat(rows("shard-3", moving)).isEqualTo(3);
		assertThat(rows("shard-2", moving)).as("cleaned on the source").isZero();
		assertThat(TenantContext.callAs(moving, () -> service.bodiesNative())).containsExactly("m1", "m2", "m3");
	}

	@Test
	@DisplayName("reconciliation reads every tenant's rows under row-level security")
	void reconciliationSeesEveryTenant() throws Exception {
		String owned = tenantWithNotes("rls-rec", "shard-1", "r1", "r2");
		String elsewhere = tenantWithNotes("rls-rec-other", "shard-2", "o1");
		// A row left behind on a shard that does not own the tenant, written as the mover would.
		try (HikariDataSource ds = cluster.pool(cluster.shard("shard-3"), 1, "rls-orphan");
				Connection c = ds.getConnection()) {
			c.setAutoCommit(false);
			try (PreparedStatement mover = c.prepareStatement("SELECT shard_fence_mover(?)");
					PreparedStatement insert = c.prepareStatement("INSERT INTO " + TABLE
							+ " (id, tenant_id, body) VALUES (gen_random_uuid(), ?, 'orphan')")) {
				mover.setString(1, elsewhere);
				mover.execute();
				insert.setString(1, elsewhere);
				insert.executeUpdate();
			}
			c.commit();
		}

		ReconciliationReport report = Internals.reconciler(context.getBean(ShardTenancy.class)).run();

		assertThat(report.missing()).noneMatch(m -> m.tenantId().equals(owned) || m.tenantId().equals(elsewhere));
		assertThat(report.misplaced()).anySatisfy(m -> {
			assertThat(m.shardId()).isEqualTo("shard-3");
			assertThat(m.tenantId()).isEqualTo(elsewhere);
			assertThat(m.rows()).isEqualTo(1);
		});
	}

	@Test
	@DisplayName("started as the superuser, the application warns once per shard naming shard, role, property and remedy; nothing about H2")
	void superuserIsWarnedAbout(CapturedOutput output) {
		String user = cluster.shard("shard-1").user();
		try (ConfigurableApplicationContext superuserApp = start(user, cluster.shard("shard-1").password())) {
			assertThat(superuserApp.isRunning()).isTrue();
		}
		String all = output.getAll();
		assertThat(all).contains("Row-level security of the tenant tables does not hold on shard 'shard-1': "
				+ "role '" + user + "' is a superuser")
			.contains("connect the shard as a role without SUPERUSER and BYPASSRLS")
			.contains("NOSUPERUSER NOBYPASSRLS")
			.contains("shard-tenancy.fence.require-row-level-security=true")
			.doesNotContain("have no row-level security");
		for (String shard : PostgresCluster.SHARD_IDS) {
			assertThat(all.split("does not hold on shard '" + shard + "'", -1)).as("warnings for %s", shard)
				.hasSize(2);
		}
	}

	@Test
	@DisplayName("started as the superuser with require-row-level-security, the application refuses to start")
	void superuserIsRefusedWhenRequired(CapturedOutput output) {
		String user = cluster.shard("shard-1").user();

		Throwable failure = catchThrowable(() -> start(user, cluster.shard("shard-1").password(),
				"shard-tenancy.fence.require-row-level-security=true").close());

		assertThat(causes(failure)).anySatisfy(t -> {
			assertThat(t).isInstanceOf(ShardTenancyConfigurationException.class);
			assertThat(((ShardTenancyConfigurationException) t).setting())
				.isEqualTo("shard-tenancy.fence.require-row-level-security");
			assertThat(((ShardTenancyConfigurationException) t).shardId()).isEqualTo("shard-1");
			assertThat(t.getMessage()).contains("shard 'shard-1'").contains("role '" + user + "' is a superuser");
		});
		assertThat(output.getAll()).contains("APPLICATION FAILED TO START")
			.contains("Connect the shard as a role without SUPERUSER and BYPASSRLS");
	}

	@Test
	@DisplayName("a shard role that does not own a tenant table whose row-level security is off fails the start naming the property, with the remedy")
	void roleThatMayNotSwitchItOnFailsTheStart() throws Exception {
		String reader = "shard_tenancy_it_reader";
		for (String shard : PostgresCluster.SHARD_IDS) {
			try (HikariDataSource ds = cluster.pool(cluster.shard(shard), 1, "rls-reader-" + shard);
					Connection c = ds.getConnection(); Statement st = c.createStatement()) {
				st.execute("DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '" + reader + "') "
						+ "THEN CREATE ROLE " + reader + " LOGIN PASSWORD '" + reader + "' NOSUPERUSER NOBYPASSRLS; "
						+ "END IF; END $$");
				st.execute("GRANT ALL ON ALL TABLES IN SCHEMA public TO " + reader);
			}
		}
		switchRowLevelSecurity("shard-1", false);
		try {
			Throwable failure = catchThrowable(() -> start(reader, reader).close());

			assertThat(causes(failure)).anySatisfy(t -> {
				assertThat(t).isInstanceOf(ShardTenancyConfigurationException.class);
				assertThat(((ShardTenancyConfigurationException) t).setting())
					.isEqualTo("shard-tenancy.fence.row-level-security");
				assertThat(((ShardTenancyConfigurationException) t).shardId()).isEqualTo("shard-1");
				assertThat(t.getMessage()).contains("table " + TABLE + " of shard 'shard-1'")
					.contains("needs the table's owner")
					.contains("shard-tenancy.fence.row-level-security=false");
			});
		}
		finally {
			switchRowLevelSecurity("shard-1", true);
		}
	}

	/** Switches the test table's row-level security on one shard, as the superuser. */
	static void switchRowLevelSecurity(String shard, boolean on) throws SQLException {
		try (HikariDataSource ds = cluster.pool(cluster.shard(shard), 1, "rls-switch-" + shard);
				Connection c = ds.getConnection();
				PreparedStatement ps = c.prepareStatement("SELECT shard_fence_install(?, 'tenant_id', ?)")) {
			ps.setString(1, TABLE);
			ps.setBoolean(2, on);
			ps.execute();
		}
	}

	@Test
	@DisplayName("row-level-security=false switches the policy off (and true back on); the completion marks, owned by the migrating role, keep theirs")
	void rowLevelSecurityCanBeSwitchedOff() throws Exception {
		String t1 = tenantWithNotes("rls-off-a", "shard-1", "a");
		String t2 = tenantWithNotes("rls-off-b", "shard-1", "b");
		try {
			try (ConfigurableApplicationContext off = start(ROLE, ROLE, "shard-tenancy.fence.row-level-security=false")) {
				assertThat(TenantContext.callAs(t2, () -> off.getBean(RlsNoteService.class).bodiesNative()))
					.contains("a", "b");
			}
			// The completion marks, which the application's role does not own, keep the owner's row-level security
			try (HikariDataSource ds = cluster.pool(cluster.shard("shard-1"), 1, "rls-marks");
					Connection c = ds.getConnection(); Statement st = c.createStatement();
					ResultSet rs = st.executeQuery("SELECT relrowsecurity AND relforcerowsecurity FROM pg_class "
							+ "WHERE oid = 'shard_task_log'::regclass")) {
				assertThat(rs.next()).isTrue();
				assertThat(rs.getBoolean(1)).as("row-level security of shard_task_log").isTrue();
			}
		}
		finally {
			try (ConfigurableApplicationContext on = start(ROLE, ROLE)) {
				assertThat(TenantContext.callAs(t2, () -> on.getBean(RlsNoteService.class).bodiesNative()))
					.containsExactly("b");
			}
		}
		assertThat(rows("shard-1", t1)).isEqualTo(1);
	}

}
