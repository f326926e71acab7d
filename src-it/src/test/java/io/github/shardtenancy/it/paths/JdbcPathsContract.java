package io.github.shardtenancy.it.paths;

import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.internal.Internals;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.stream.Stream;
import javax.sql.DataSource;

import io.github.shardtenancy.CrossTenantStatementException;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.TenantSwitchedException;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.boot.retry.ShardTenancyRetry;
import io.github.shardtenancy.internal.topology.Topology;
import io.github.shardtenancy.retry.FenceRejection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.core.simple.SimpleJdbcInsert;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The ways an ordinary Spring application reaches a shard with JDBC and native SQL, on one database kind (the
 * subclasses): auto-commit work on the tenant-routing DataSource outside any transaction is committed (and fenced)
 * statement by statement, manual commit and Spring's {@link JdbcTransactionManager} work as JDBC says, statements that
 * act on whole tables are refused, and a connection of one tenant refuses work bound to another.
 *
 * <p>Two application instances share the databases: {@code app}, whose router hears of nothing (sync every hour, no
 * notifications), and {@code mover}, which moves tenants behind its back.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class JdbcPathsContract {

	static final String INSERT = "INSERT INTO paths_memo (id, tenant_id, body) VALUES (?, ?, ?)";

	ConfigurableApplicationContext app;

	ConfigurableApplicationContext mover;

	JdbcTemplate jdbc;

	DataSource dataSource;

	Topology topology;

	/** @return the directory's and shard-1's and shard-2's connection properties */
	abstract List<String> databaseProperties();

	/**
	 * @param name a fresh table name
	 * @return SQL that creates a temporary table of one INT column {@code n}, dropped with the transaction or session
	 */
	abstract String createTemporaryTable(String name);

	@BeforeAll
	void start() {
		this.app = start("paths-app");
		this.mover = start("paths-mover");
		this.jdbc = this.app.getBean(JdbcTemplate.class);
		this.dataSource = this.app.getBean(DataSource.class);
		this.topology = Internals.topology(this.app.getBean(ShardTenancy.class));
	}

	@AfterAll
	void stop() {
		for (ConfigurableApplicationContext context : new ConfigurableApplicationContext[] { this.app, this.mover }) {
			if (context != null) {
				context.close();
			}
		}
	}

	private ConfigurableApplicationContext start(String actor) {
		List<String> properties = new ArrayList<>(databaseProperties());
		properties.addAll(List.of("shard-tenancy.liquibase.shard-changelogs=db/it-paths/memo.xml",
				"shard-tenancy.sync.interval=1h", "shard-tenancy.sync.listen=false", "shard-tenancy.retry.max-delay=20ms",
				"shard-tenancy.move.clean-delay=0s", "shard-tenancy.actor=" + actor, "spring.liquibase.enabled=false",
				"spring.jmx.enabled=false"));
		return new SpringApplicationBuilder(PathsApplication.class).web(WebApplicationType.NONE)
			.properties(properties.toArray(String[]::new))
			.run();
	}

	String newTenant(String prefix) {
		String tenant = prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
		this.app.getBean(TenantAdmin.class).create(tenant, "shard-1");
		return tenant;
	}

	/** Counts a tenant's memos on a shard with the shard's own pool, outside the library. */
	long rows(String shard, String tenant) {
		return rows(shard, tenant, null);
	}

	long rows(String shard, String tenant, String body) {
		try (Connection c = this.topology.shard(shard).dataSource().getConnection();
				PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM paths_memo WHERE tenant_id = ?"
						+ (body != null ? " AND body = ?" : ""))) {
			ps.setString(1, tenant);
			if (body != null) {
				ps.setString(2, body);
			}
			try (ResultSet rs = ps.executeQuery()) {
				rs.next();
				return rs.getLong(1);
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	int insert(String tenant, String body) {
		return this.jdbc.update(INSERT, UUID.randomUUID(), tenant, body);
	}

	@Test
	@DisplayName("outside a transaction, JdbcTemplate, NamedParameterJdbcTemplate, JdbcClient and plain JDBC writes are committed")
	void autoCommitWritesAreCommitted() throws Exception {
		String tenant = newTenant("auto");
		NamedParameterJdbcTemplate named = this.app.getBean(NamedParameterJdbcTemplate.class);
		JdbcClient client = this.app.getBean(JdbcClient.class);

		TenantContext.callAs(tenant, () -> {
			assertThat(insert(tenant, "jdbc-template")).isEqualTo(1);
			assertThat(named.update("INSERT INTO paths_memo (id, tenant_id, body) VALUES (:id, :tenant, :body)",
					Map.of("id", UUID.randomUUID(), "tenant", tenant, "body", "named"))).isEqualTo(1);
			assertThat(client.sql(INSERT).params(UUID.randomUUID(), tenant, "jdbc-client").update()).isEqualTo(1);
			try (Connection c = this.dataSource.getConnection()) {
				assertThat(c.getAutoCommit()).isTrue();
				try (PreparedStatement ps = c.prepareStatement(INSERT)) {
					ps.setObject(1, UUID.randomUUID());
					ps.setString(2, tenant);
					ps.setString(3, "prepared");
					assertThat(ps.executeUpdate()).isEqualTo(1);
				}
				try (Statement s = c.createStatement()) {
					assertThat(s.executeUpdate("INSERT INTO paths_memo (id, tenant_id, body) VALUES ('"
							+ UUID.randomUUID() + "', '" + tenant + "', 'statement')")).isEqualTo(1);
				}
			}
			return null;
		});

		assertThat(rows("shard-1", tenant)).isEqualTo(5);
		assertThat(TenantContext.callAs(tenant, () -> this.app.getBean(PathsApplication.NativeSql.class).bodies()))
			.containsExactly("jdbc-client", "jdbc-template", "named", "prepared", "statement");
	}

	@Test
	@DisplayName("outside a transaction, queries with a fetch size and streams read every row, and later writes commit")
	void autoCommitQueries() throws Exception {
		String tenant = newTenant("query");
		JdbcTemplate fetching = new JdbcTemplate(this.dataSource);
		fetching.setFetchSize(2);

		TenantContext.callAs(tenant, () -> {
			for (int i = 0; i < 5; i++) {
				insert(tenant, "row-" + i);
			}
			assertThat(fetching.queryForList("SELECT body FROM paths_memo WHERE tenant_id = ? ORDER BY body",
					String.class, tenant))
				.containsExactly("row-0", "row-1", "row-2", "row-3", "row-4");
			try (Stream<String> bodies = fetching.queryForStream("SELECT body FROM paths_memo WHERE tenant_id = ?",
					(rs, n) -> rs.getString(1), tenant)) {
				assertThat(bodies).hasSize(5);
			}
			insert(tenant, "after-queries");
			return null;
		});

		assertThat(rows("shard-1", tenant)).isEqualTo(6);
	}

	@Test
	@DisplayName("outside a transaction, a failed statement is rolled back and the connection goes on committing")
	void autoCommitFailureRollsBackOnlyThatStatement() throws Exception {
		String tenant = newTenant("fail");

		TenantContext.callAs(tenant, () -> {
			try (Connection c = this.dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(INSERT)) {
				for (String body : new String[] { "first", "first", "after" }) {
					ps.setObject(1, UUID.randomUUID());
					ps.setString(2, tenant);
					ps.setString(3, body);
					try {
						ps.executeUpdate();
					}
					catch (SQLException ex) {
						assertThat(ex.getSQLState()).startsWith("23");
					}
				}
			}
			return null;
		});

		assertThat(rows("shard-1", tenant, "first")).isEqualTo(1);
		assertThat(rows("shard-1", tenant, "after")).isEqualTo(1);
	}

	@Test
	@DisplayName("outside a transaction, a JdbcTemplate batch is committed")
	void autoCommitBatch() throws Exception {
		String tenant = newTenant("batch");

		int[] counts = TenantContext.callAs(tenant, () -> this.jdbc.batchUpdate(INSERT,
				List.of(new Object[] { UUID.randomUUID(), tenant, "b1" }, new Object[] { UUID.randomUUID(), tenant, "b2" },
						new Object[] { UUID.randomUUID(), tenant, "b3" })));

		assertThat(counts).hasSize(3);
		assertThat(rows("shard-1", tenant)).isEqualTo(3);
	}

	@Test
	@DisplayName("manual commit mode: rollback, commit, auto-commit switched back on, and close without commit behave as JDBC says")
	void manualCommitMode() throws Exception {
		String tenant = newTenant("manual");

		TenantContext.callAs(tenant, () -> {
			try (Connection c = this.dataSource.getConnection()) {
				c.setAutoCommit(false);
				insertOn(c, tenant, "rolled-back");
				c.rollback();
				insertOn(c, tenant, "committed");
				c.commit();
				insertOn(c, tenant, "committed-by-auto-commit-on");
				c.setAutoCommit(true);
				insertOn(c, tenant, "auto-committed");
				c.setAutoCommit(false);
				insertOn(c, tenant, "never-committed");
			}
			return null;
		});

		assertThat(rows("shard-1", tenant, "rolled-back")).isZero();
		assertThat(rows("shard-1", tenant, "committed")).isEqualTo(1);
		assertThat(rows("shard-1", tenant, "committed-by-auto-commit-on")).isEqualTo(1);
		assertThat(rows("shard-1", tenant, "auto-committed")).isEqualTo(1);
		assertThat(rows("shard-1", tenant, "never-committed")).isZero();
	}

	private static void insertOn(Connection c, String tenant, String body) throws SQLException {
		try (PreparedStatement ps = c.prepareStatement(INSERT)) {
			ps.setObject(1, UUID.randomUUID());
			ps.setString(2, tenant);
			ps.setString(3, body);
			ps.executeUpdate();
		}
	}

	@Test
	@DisplayName("Spring's JdbcTransactionManager on the tenant-routing DataSource commits and rolls back")
	void jdbcTransactionManager() throws Exception {
		String tenant = newTenant("jdbc-tm");
		PlatformTransactionManager manager = new JdbcTransactionManager(this.dataSource);
		TransactionTemplate transaction = new TransactionTemplate(manager);

		TenantContext.callAs(tenant, () -> {
			transaction.executeWithoutResult(status -> {
				insert(tenant, "rolled-back");
				status.setRollbackOnly();
			});
			transaction.executeWithoutResult(status -> {
				insert(tenant, "one");
				insert(tenant, "two");
			});
			return null;
		});

		assertThat(rows("shard-1", tenant, "rolled-back")).isZero();
		assertThat(rows("shard-1", tenant)).isEqualTo(2);
	}

	@Test
	@DisplayName("in a transaction, JdbcTemplate, SimpleJdbcInsert and NamedParameterJdbcTemplate INSERTs that omit the tenant column write the bound tenant")
	void omittedTenantColumnIsTheBoundTenant() throws Exception {
		String tenant = newTenant("filled");
		String other = newTenant("neighbour");
		NamedParameterJdbcTemplate named = this.app.getBean(NamedParameterJdbcTemplate.class);
		SimpleJdbcInsert simple = new SimpleJdbcInsert(this.dataSource).withTableName("paths_memo")
			.usingColumns("id", "body");
		TransactionTemplate transaction = new TransactionTemplate(this.app.getBean(PlatformTransactionManager.class));

		TenantContext.runAs(tenant, () -> transaction.executeWithoutResult(status -> {
			this.jdbc.update("INSERT INTO paths_memo (id, body) VALUES (?, ?)", UUID.randomUUID(), "template");
			simple.execute(Map.of("id", UUID.randomUUID(), "body", "simple-insert"));
			named.update("INSERT INTO paths_memo (id, body) VALUES (:id, :body)",
					Map.of("id", UUID.randomUUID(), "body", "named"));
		}));

		assertThat(rows("shard-1", tenant)).isEqualTo(3);
		assertThat(TenantContext.callAs(tenant, () -> this.app.getBean(PathsApplication.NativeSql.class).bodies()))
			.containsExactly("named", "simple-insert", "template");

		// Another tenant's value, named explicitly: refused as before, nothing written.
		Throwable foreign = catchThrowable(() -> TenantContext.runAs(tenant,
				() -> transaction.executeWithoutResult(status -> insert(other, "smuggled"))));
		assertThat(foreign).as("an INSERT of another tenant's row").isNotNull().hasStackTraceContaining("FOREIGN_ROW");
		assertThat(rows("shard-1", other) + rows("shard-1", tenant, "smuggled")).isZero();

		// No tenant bound, on the shard's own pool (the routing DataSource refuses to route without one): the INSERT
		// fails, no row.
		JdbcTemplate shard = new JdbcTemplate(this.topology.shard("shard-1").dataSource());
		Throwable unbound = catchThrowable(() -> new TransactionTemplate(new JdbcTransactionManager(
				this.topology.shard("shard-1").dataSource())).executeWithoutResult(status -> shard
					.update("INSERT INTO paths_memo (id, body) VALUES (?, ?)", UUID.randomUUID(), "unbound")));
		assertThat(unbound).as("an INSERT without tenant column and with no tenant bound").isNotNull();
		assertThat(shard.queryForObject("SELECT count(*) FROM paths_memo WHERE body = 'unbound'", Long.class)).isZero();
	}

	@Test
	@DisplayName("an auto-commit write on a stale route is rejected by the old owner's fence, nothing written; retried, it lands once on the new owner")
	void staleAutoCommitWriteIsFenced() throws Exception {
		String tenant = newTenant("stale");
		TenantContext.callAs(tenant, () -> insert(tenant, "before-move"));
		this.mover.getBean(TenantAdmin.class).move(tenant, "shard-2");
		assertThat(Internals.router(this.app.getBean(ShardTenancy.class)).cached(tenant)).get()
			.satisfies(entry -> assertThat(entry.shardId()).isEqualTo("shard-1"));

		Throwable rejected = catchThrowable(() -> TenantContext.callAs(tenant, () -> insert(tenant, "stale")));

		assertThat(FenceRejection.find(rejected)).as("fence rejection in %s", rejected).get()
			.satisfies(rejection -> assertThat(rejection.shardId()).isEqualTo("shard-1"));
		assertThat(rows("shard-1", tenant, "stale") + rows("shard-2", tenant, "stale")).isZero();

		ShardTenancyRetry retry = this.app.getBean(ShardTenancyRetry.class);
		TenantContext.runAs(tenant, () -> retry.run(() -> insert(tenant, "retried")));

		assertThat(rows("shard-1", tenant)).isZero();
		assertThat(rows("shard-2", tenant, "retried")).isEqualTo(1);
		assertThat(rows("shard-2", tenant, "before-move")).isEqualTo(1);
	}

	@Test
	@DisplayName("TRUNCATE and DDL on a tenant's connection are refused (JdbcTemplate and native SQL); other tenants' rows stay")
	void wholeTableStatementsAreRefused() throws Exception {
		String owner = newTenant("owner");
		String other = newTenant("other");
		TenantContext.callAs(owner, () -> insert(owner, "mine"));
		PathsApplication.NativeSql nativeSql = this.app.getBean(PathsApplication.NativeSql.class);

		List<Throwable> refusals = new ArrayList<>();
		TenantContext.runAs(other, () -> {
			refusals.add(catchThrowable(() -> this.jdbc.execute("TRUNCATE TABLE paths_memo")));
			refusals.add(catchThrowable(() -> this.jdbc.update("  /* tidy */ truncate paths_memo")));
			refusals.add(catchThrowable(() -> nativeSql.update("TRUNCATE TABLE paths_memo")));
			refusals.add(catchThrowable(() -> this.jdbc.execute("ALTER TABLE paths_memo ADD COLUMN extra INT")));
			refusals.add(catchThrowable(() -> nativeSql.update("DROP TABLE paths_memo")));
			refusals.add(catchThrowable(() -> this.jdbc.execute("CREATE INDEX paths_memo_body ON paths_memo (body)")));
		});

		assertThat(refusals).allSatisfy(refusal -> assertThat(refusal).isInstanceOf(CrossTenantStatementException.class)
			.hasMessageContaining("'" + other + "'")
			.hasMessageContaining("shard-1"));
		assertThat(rows("shard-1", owner)).isEqualTo(1);
		assertThat(TenantContext.callAs(owner, () -> this.jdbc.queryForObject(
				"SELECT count(*) FROM paths_memo WHERE tenant_id = ?", Long.class, owner))).isEqualTo(1);
	}

	@Test
	@DisplayName("a temporary table is not DDL on a tenant table: created, written and read in a transaction")
	void temporaryTablesAreAllowed() throws Exception {
		String tenant = newTenant("temp");
		String table = "tmp_" + UUID.randomUUID().toString().substring(0, 8).replace('-', '_');
		TransactionTemplate transaction = new TransactionTemplate(this.app.getBean(PlatformTransactionManager.class));

		Integer count = TenantContext.callAs(tenant, () -> transaction.execute(status -> {
			this.jdbc.execute(createTemporaryTable(table));
			this.jdbc.update("INSERT INTO " + table + " (n) VALUES (1)");
			return this.jdbc.queryForObject("SELECT count(*) FROM " + table, Integer.class);
		}));

		assertThat(count).isEqualTo(1);
	}

	@Test
	@DisplayName("a tenant's connection used by a thread bound to another tenant refuses it before anything runs")
	void connectionOfAnotherTenant() throws Exception {
		String owner = newTenant("holder");
		String other = newTenant("intruder");

		try (Connection c = TenantContext.callAs(owner, this.dataSource::getConnection)) {
			Throwable refused = catchThrowable(() -> CompletableFuture
				.runAsync(() -> TenantContext.runAs(other, () -> {
					try (PreparedStatement ps = c.prepareStatement(INSERT)) {
						ps.setObject(1, UUID.randomUUID());
						ps.setString(2, other);
						ps.setString(3, "through another's connection");
						ps.executeUpdate();
					}
					catch (SQLException ex) {
						throw new IllegalStateException(ex);
					}
				}))
				.join());

			assertThat(refused).isInstanceOf(CompletionException.class)
				.cause()
				.isInstanceOf(TenantSwitchedException.class)
				.hasMessageContaining("'" + owner + "'")
				.hasMessageContaining("'" + other + "'");
		}
		assertThat(rows("shard-1", other)).isZero();
	}

}
