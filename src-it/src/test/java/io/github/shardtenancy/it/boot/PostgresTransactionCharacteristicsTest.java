package io.github.shardtenancy.it.boot;

import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.internal.Internals;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.boot.web.TenantHeaderFilter;
import io.github.shardtenancy.internal.hibernate.TenantRoutingDataSource;
import io.github.shardtenancy.internal.topology.Topology;
import io.github.shardtenancy.it.boot.iso.IsoPgApplication;
import io.github.shardtenancy.it.boot.iso.PgMemoService;
import io.github.shardtenancy.it.boot.iso.PgSeen;
import io.github.shardtenancy.it.support.BootProperties;
import io.github.shardtenancy.testing.pg.PostgresCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.mock.web.MockServletContext;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.web.context.WebApplicationContext;
import org.springframework.web.context.support.GenericWebApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * Isolation levels and read-only of {@code @Transactional}, {@code TransactionTemplate} and {@code JdbcTransactionManager}
 * on the PostgreSQL shard transaction, a genuine serialization failure between two serializable transactions retried,
 * and open session in view refusing reads as another tenant, each in a Spring Boot / Spring Data JPA / Spring MVC
 * application ({@link IsoPgApplication}) with {@code hibernate.connection.provider_disables_autocommit} off (the
 * connection is borrowed when the transaction begins) and on (borrowed at its first statement).
 */
@DisplayName("PostgreSQL: isolation levels, read-only and open session in view")
class PostgresTransactionCharacteristicsTest {

	static final RowMapper<PgSeen> SEEN = (rs, i) -> new PgSeen(rs.getInt(1), rs.getString(2), rs.getString(3),
			rs.getString(4));

	static PostgresCluster cluster;

	static final Map<String, ConfigurableApplicationContext> apps = new LinkedHashMap<>();

	@BeforeAll
	static void start() {
		cluster = PostgresCluster.shared();
		apps.put("plain", start("pg-iso-plain"));
		apps.put("tuned", start("pg-iso-tuned",
				"spring.jpa.properties.hibernate.connection.provider_disables_autocommit=true"));
	}

	@AfterAll
	static void stop() {
		apps.values().forEach(ConfigurableApplicationContext::close);
		apps.clear();
	}

	static ConfigurableApplicationContext start(String actor, String... extra) {
		List<String> properties = new ArrayList<>(List.of(
				"shard-tenancy.liquibase.shard-changelogs=db/it-pg/pg-iso.xml", "shard-tenancy.sync.interval=1h",
				"shard-tenancy.sync.listen=false", "shard-tenancy.retry.max-delay=20ms", "shard-tenancy.actor=" + actor,
				"spring.liquibase.enabled=false", "spring.jmx.enabled=false", "spring.jpa.open-in-view=true"));
		properties.addAll(BootProperties.connectingTo(cluster));
		properties.addAll(List.of(extra));
		// A servlet application without a server: requests go through MockMvc (DispatcherServlet, the header filter,
		// Boot's open-in-view interceptor).
		return new SpringApplicationBuilder(IsoPgApplication.class).web(WebApplicationType.SERVLET)
			.contextFactory(type -> new GenericWebApplicationContext(new MockServletContext()))
			.properties(properties.toArray(String[]::new))
			.run();
	}

	static ConfigurableApplicationContext app(String name) {
		return apps.get(name);
	}

	static String newTenant(ConfigurableApplicationContext app, String prefix) {
		String tenant = PostgresCluster.tenant(prefix);
		app.getBean(TenantAdmin.class).create(tenant, "shard-1");
		return tenant;
	}

	static long memos(ConfigurableApplicationContext app, String tenant, String title) throws SQLException {
		try (Connection c = Internals.topology(app.getBean(ShardTenancy.class)).shard("shard-1").dataSource().getConnection();
				PreparedStatement ps = c
					.prepareStatement("SELECT count(*) FROM pg_iso_memo WHERE tenant_id = ? AND title LIKE ?")) {
			ps.setString(1, tenant);
			ps.setString(2, title);
			try (ResultSet rs = ps.executeQuery()) {
				rs.next();
				return rs.getLong(1);
			}
		}
	}

	static String sqlState(Throwable thrown) {
		for (Throwable t = thrown; t != null; t = t.getCause()) {
			if (t instanceof SQLException sql && sql.getSQLState() != null) {
				return sql.getSQLState();
			}
		}
		return null;
	}

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "plain", "tuned" })
	@DisplayName("@Transactional(isolation = ...) runs the shard transaction at each level (SHOW transaction_isolation)")
	void everyIsolationLevel(String name) {
		PgMemoService service = app(name).getBean(PgMemoService.class);
		String tenant = newTenant(app(name), "iso-levels");

		TenantContext.runAs(tenant, () -> {
			assertThat(service.readUncommitted().isolation()).isEqualTo("read uncommitted");
			assertThat(service.readCommitted().isolation()).isEqualTo("read committed");
			assertThat(service.repeatableRead().isolation()).isEqualTo("repeatable read");
			PgSeen serializable = service.serializable();
			assertThat(serializable.isolation()).isEqualTo("serializable");
			assertThat(serializable.tenant()).isEqualTo(tenant);
			assertThat(service.readOnly().readOnly()).isEqualTo("on");
		});
	}

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "plain", "tuned" })
	@DisplayName("a TransactionTemplate with an isolation level and read-only runs the shard transaction with both")
	void transactionTemplate(String name) throws Exception {
		PgMemoService service = app(name).getBean(PgMemoService.class);
		TransactionTemplate template = new TransactionTemplate(
				app(name).getBean(org.springframework.transaction.PlatformTransactionManager.class));
		template.setIsolationLevel(TransactionDefinition.ISOLATION_REPEATABLE_READ);
		template.setReadOnly(true);
		String tenant = newTenant(app(name), "iso-template");

		PgSeen seen = TenantContext.callAs(tenant, () -> template.execute(status -> service.seen()));

		assertThat(seen.isolation()).isEqualTo("repeatable read");
		assertThat(seen.readOnly()).isEqualTo("on");
	}

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "plain", "tuned" })
	@DisplayName("the pool resets isolation and read-only: the next borrower of the same connection gets the defaults and may write")
	void poolResetsTheConnection(String name) throws Exception {
		PgMemoService service = app(name).getBean(PgMemoService.class);
		String tenant = newTenant(app(name), "iso-reset");

		PgSeen special = TenantContext.callAs(tenant, service::serializableReadOnly);
		PgSeen next = TenantContext.callAs(tenant, service::defaults);
		TenantContext.runAs(tenant, () -> service.write("after read-only"));

		assertThat(special).isEqualTo(new PgSeen(special.backend(), tenant, "serializable", "on"));
		assertThat(next).isEqualTo(new PgSeen(special.backend(), tenant, "read committed", "off"));
		assertThat(memos(app(name), tenant, "after read-only")).isEqualTo(1);
	}

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "plain", "tuned" })
	@DisplayName("a REQUIRES_NEW read-write transaction run before the outer serializable read-only one's first statement: each runs with its own settings")
	void requiresNewBeforeTheOuterStatement(String name) throws Exception {
		PgMemoService service = app(name).getBean(PgMemoService.class);
		String tenant = newTenant(app(name), "iso-nested");

		List<PgSeen> seen = TenantContext.callAs(tenant, () -> service.requiresNewFirst("inner write"));

		assertThat(seen.get(0)).extracting(PgSeen::isolation, PgSeen::readOnly)
			.containsExactly("read committed", "off");
		assertThat(seen.get(1)).extracting(PgSeen::isolation, PgSeen::readOnly).containsExactly("serializable", "on");
		assertThat(memos(app(name), tenant, "inner write")).isEqualTo(1);
	}

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "plain", "tuned" })
	@DisplayName("@Transactional(readOnly = true): a native insert, persist + flush and a JdbcTemplate insert are refused with 25006, not retried, nothing written")
	void readOnlyRefusesWrites(String name) throws Exception {
		PgMemoService service = app(name).getBean(PgMemoService.class);
		String tenant = newTenant(app(name), "iso-ro");
		service.reset();

		try (TenantContext.Scope scope = TenantContext.bind(tenant)) {
			Throwable nativeInsert = catchThrowable(() -> service.nativeInsert("native"));
			Throwable persist = catchThrowable(() -> service.persistAndFlush("persisted"));
			Throwable jdbcInsert = catchThrowable(() -> service.jdbcInsert("jdbc"));

			assertThat(sqlState(nativeInsert)).as("%s", nativeInsert).isEqualTo("25006");
			assertThat(sqlState(persist)).as("%s", persist).isEqualTo("25006");
			assertThat(sqlState(jdbcInsert)).as("%s", jdbcInsert).isEqualTo("25006");
		}
		assertThat(service.runs()).isEqualTo(3);
		assertThat(memos(app(name), tenant, "%")).isZero();
	}

	@Test
	@DisplayName("JdbcTransactionManager on the tenant-routing DataSource: isolation and read-only are in force, a write is refused with 25006, and the next transaction has the defaults")
	void jdbcTransactionManager() throws Exception {
		TenantRoutingDataSource routing = app("plain").getBean(TenantRoutingDataSource.class);
		JdbcTransactionManager manager = new JdbcTransactionManager(routing);
		JdbcTemplate jdbc = new JdbcTemplate(routing);
		TransactionTemplate special = new TransactionTemplate(manager);
		special.setIsolationLevel(TransactionDefinition.ISOLATION_SERIALIZABLE);
		special.setReadOnly(true);
		TransactionTemplate plain = new TransactionTemplate(manager);
		String tenant = newTenant(app("plain"), "iso-jdbc-tm");

		try (TenantContext.Scope scope = TenantContext.bind(tenant)) {
			PgSeen seen = special.execute(status -> jdbc.queryForObject(PgSeen.QUERY, SEEN));
			Throwable write = catchThrowable(() -> special.executeWithoutResult(status -> jdbc.update(
					"insert into pg_iso_memo (id, tenant_id, title) values (?, ?, ?)", UUID.randomUUID(), tenant,
					"refused")));
			PgSeen after = plain.execute(status -> jdbc.queryForObject(PgSeen.QUERY, SEEN));
			plain.executeWithoutResult(status -> jdbc.update(
					"insert into pg_iso_memo (id, tenant_id, title) values (?, ?, ?)", UUID.randomUUID(), tenant,
					"accepted"));

			assertThat(seen).isEqualTo(new PgSeen(seen.backend(), tenant, "serializable", "on"));
			assertThat(sqlState(write)).as("%s", write).isEqualTo("25006");
			assertThat(after).isEqualTo(new PgSeen(seen.backend(), tenant, "read committed", "off"));
		}
		assertThat(memos(app("plain"), tenant, "refused")).isZero();
		assertThat(memos(app("plain"), tenant, "accepted")).isEqualTo(1);
	}

	@Test
	@DisplayName("a genuine serialization failure between two real concurrent SERIALIZABLE transactions is retried: both commit, one took two attempts")
	void serializationFailureRetried() throws Exception {
		PgMemoService service = app("plain").getBean(PgMemoService.class);
		String tenant = newTenant(app("plain"), "iso-skew");
		String a = "skew-a-" + UUID.randomUUID();
		String b = "skew-b-" + UUID.randomUUID();
		CyclicBarrier bothCounted = new CyclicBarrier(2);
		ExecutorService threads = Executors.newFixedThreadPool(2);
		try {
			Future<?> first = threads.submit(() -> TenantContext.callAs(tenant, () -> {
				service.countThenWrite(a, bothCounted);
				return null;
			}));
			Future<?> second = threads.submit(() -> TenantContext.callAs(tenant, () -> {
				service.countThenWrite(b, bothCounted);
				return null;
			}));
			first.get(120, TimeUnit.SECONDS);
			second.get(120, TimeUnit.SECONDS);
		}
		finally {
			threads.shutdownNow();
		}

		assertThat(service.skewAttempts(a) + service.skewAttempts(b)).isEqualTo(3);
		assertThat(memos(app("plain"), tenant, a + "%")).isEqualTo(1);
		assertThat(memos(app("plain"), tenant, b + "%")).isEqualTo(1);
		// The retried one counted the other's memo: the two ran as if one after the other.
		assertThat(memos(app("plain"), tenant, "% after 1")).isEqualTo(1);
	}

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "plain", "tuned" })
	@DisplayName("open session in view: reading as another tenant in the same request is refused on every path (find, getReference, repository, JPQL)")
	void openSessionInView(String name) throws Exception {
		ConfigurableApplicationContext app = app(name);
		MockMvc mvc = MockMvcBuilders.webAppContextSetup((WebApplicationContext) app)
			.addFilters(app.getBean(TenantHeaderFilter.class))
			.build();
		PgMemoService service = app.getBean(PgMemoService.class);
		String tenant = newTenant(app, "iso-osiv");
		String other = newTenant(app, "iso-osiv-other");
		UUID id = TenantContext.callAs(tenant, () -> service.write("secret")).getId();

		for (String via : List.of("find", "reference", "repository", "query")) {
			mvc.perform(get("/memos/" + id + "/as/" + other).param("via", via).header("X-Tenant-Id", tenant))
				.andExpect(status().isConflict())
				.andExpect(content().string(org.hamcrest.Matchers.startsWith("TenantSwitchedException")));
		}
		mvc.perform(get("/memos/" + id + "/as/" + tenant).param("via", "find").header("X-Tenant-Id", tenant))
			.andExpect(status().isOk())
			.andExpect(content().string("secret | secret of " + tenant));
	}

}
