package io.github.shardtenancy.it.boot;

import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.internal.Internals;
import io.github.shardtenancy.retry.FenceRejection;
import java.sql.Connection;
import java.sql.ParameterMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import javax.sql.DataSource;

import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.RouterSettings;
import io.github.shardtenancy.TenantTable;
import io.github.shardtenancy.TenantMover;
import io.github.shardtenancy.RouterSettings;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.internal.move.Mover;
import io.github.shardtenancy.internal.routing.Router;
import io.github.shardtenancy.internal.topology.Topology;
import io.github.shardtenancy.it.boot.jpa.Attempts;
import io.github.shardtenancy.it.boot.jpa.Badge;
import io.github.shardtenancy.it.boot.jpa.JpaPathsApplication;
import io.github.shardtenancy.it.boot.jpa.Parcel;
import io.github.shardtenancy.it.boot.jpa.Remark;
import io.github.shardtenancy.it.boot.jpa.Ticket;
import io.github.shardtenancy.it.boot.jpa.TicketRepository;
import io.github.shardtenancy.it.boot.jpa.TicketService;
import io.github.shardtenancy.it.support.AppInstance;
import io.github.shardtenancy.it.support.BootProperties;
import io.github.shardtenancy.testing.pg.PgBouncer;
import io.github.shardtenancy.testing.pg.PostgresCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.domain.Page;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * A Spring Boot / Spring Data JPA application ({@link JpaPathsApplication}) on the PostgreSQL shards, driving every
 * kind of statement Hibernate, Spring Data and JdbcTemplate start a transaction with: the fence begin travels with a
 * first {@code select} and runs on its own before anything else. Each kind is checked twice: on a fresh
 * route (the rows are the tenant's, and only its), and on a stale route after a move this instance did not hear of
 * (rejected by the old owner with SQLSTATE 40001, retried once by the Boot retry, done on the new owner only).
 */
@DisplayName("PostgreSQL with Spring Data JPA: every kind of first statement is fenced")
class PostgresBootJpaPathsTest {

	static final List<TenantTable> TABLES = List.of(new TenantTable("pg_ticket", "tenant_id"),
			new TenantTable("pg_remark", "tenant_id"), new TenantTable("pg_parcel", "tenant_id"),
			new TenantTable("pg_badge", "tenant_id"));

	static PostgresCluster cluster;

	static ConfigurableApplicationContext context;

	static AppInstance operator;

	static TicketService service;

	static TicketRepository tickets;

	static JdbcTemplate jdbc;

	static Attempts attempts;

	static Router router;

	static Topology topology;

	@BeforeAll
	static void start() {
		cluster = PostgresCluster.shared();
		// JDBC batching on, as many applications run it; no NOTIFY push and no poll: only the fence teaches the router.
		context = start("pg-jpa-paths", "spring.jpa.properties.hibernate.jdbc.batch_size=5",
				"spring.jpa.properties.hibernate.order_inserts=true");
		service = context.getBean(TicketService.class);
		tickets = context.getBean(TicketRepository.class);
		jdbc = context.getBean(JdbcTemplate.class);
		attempts = context.getBean(Attempts.class);
		router = Internals.router(context.getBean(ShardTenancy.class));
		topology = Internals.topology(context.getBean(ShardTenancy.class));
		operator = AppInstance.plain(cluster, "jpa-paths-op", RouterSettings.defaults(), 2);
	}

	@AfterAll
	static void stop() {
		if (operator != null) {
			operator.close();
		}
		if (context != null) {
			context.close();
		}
	}

	static ConfigurableApplicationContext start(String actor, String... extra) {
		List<String> properties = new ArrayList<>(List.of(
				"shard-tenancy.liquibase.shard-changelogs=db/it-pg/pg-jpa-paths.xml",
				"shard-tenancy.sync.interval=1h",
				"shard-tenancy.sync.listen=false",
				"shard-tenancy.retry.max-delay=20ms",
				// Remark, Ticket and Badge use IDENTITY, SEQUENCE and TABLE ids on purpose (the retry of generated ids)
				"shard-tenancy.ids.check=warn",
				"shard-tenancy.actor=" + actor,
				"spring.liquibase.enabled=false",
				"spring.jmx.enabled=false"));
		properties.addAll(BootProperties.connectingTo(cluster));
		properties.addAll(List.of(extra));
		return new SpringApplicationBuilder(JpaPathsApplication.class).web(WebApplicationType.NONE)
			.properties(properties.toArray(String[]::new))
			.run();
	}

	@BeforeEach
	void resetCounters() {
		attempts.reset();
		service.reset();
	}

	/** A new tenant on shard-1 with the given tickets (priority 1, 2, ... in order), placed through the application. */
	static String tenantWithTickets(String prefix, String... titles) {
		return tenantWithTickets(context, prefix, titles);
	}

	/** Like {@link #tenantWithTickets(String, String...)}, through the given application. */
	static String tenantWithTickets(ConfigurableApplicationContext app, String prefix, String... titles) {
		String tenant = PostgresCluster.tenant(prefix);
		app.getBean(TenantAdmin.class).create(tenant, "shard-1");
		TicketService appService = app.getBean(TicketService.class);
		for (int i = 0; i < titles.length; i++) {
			int priority = i + 1;
			String title = titles[i];
			TenantContext.runAs(tenant, () -> appService.open(title, priority));
		}
		assertThat(Internals.router(app.getBean(ShardTenancy.class)).cached(tenant)).get()
			.satisfies(e -> assertThat(e.shardId()).isEqualTo("shard-1"));
		return tenant;
	}

	static <T> T as(String tenant, Callable<T> work) throws Exception {
		return TenantContext.callAs(tenant, work);
	}

	/**
	 * Moves the tenant to shard-2 behind the application's back (it still routes to shard-1), then runs the work as the
	 * tenant and checks that exactly one attempt was rejected by shard-1's fence and retried, and that the application
	 * now routes to shard-2.
	 */
	static <T> T afterAMoveTheApplicationMissed(String tenant, Callable<T> work) throws Exception {
		return afterAMoveTheApplicationMissed(context, tenant, work);
	}

	/** Like {@link #afterAMoveTheApplicationMissed(String, Callable)}, for the given application. */
	static <T> T afterAMoveTheApplicationMissed(ConfigurableApplicationContext app, String tenant, Callable<T> work)
			throws Exception {
		Router appRouter = Internals.router(app.getBean(ShardTenancy.class));
		Attempts appAttempts = app.getBean(Attempts.class);
		new Mover(operator.directory, operator.router, operator.topology, TABLES, "jpa-paths-op", Runnable::run)
			.moveAndWait(tenant, "shard-2", MoveSettings.stopTheWorld());
		assertThat(appRouter.cached(tenant)).get().satisfies(e -> assertThat(e.shardId()).isEqualTo("shard-1"));
		appAttempts.reset();
		app.getBean(TicketService.class).reset();

		T result = as(tenant, work);

		assertThat(appAttempts.retries()).as("retries").isEqualTo(1);
		assertThat(appAttempts.failures()).singleElement()
			.satisfies(failure -> assertThat(FenceRejection.find(failure)).as("fence rejection in %s", failure)
				.get()
				.satisfies(r -> {
					assertThat(r.tenantId()).isEqualTo(tenant);
					assertThat(r.shardId()).isEqualTo("shard-1");
				}));
		assertThat(appRouter.cached(tenant)).get().satisfies(e -> assertThat(e.shardId()).isEqualTo("shard-2"));
		return result;
	}

	static long rows(String shard, String table, String tenant) throws SQLException {
		try (Connection c = topology.shard(shard).dataSource().getConnection();
				PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM " + table + " WHERE tenant_id = ?")) {
			ps.setString(1, tenant);
			try (ResultSet rs = ps.executeQuery()) {
				rs.next();
				return rs.getLong(1);
			}
		}
	}

	static List<String> titles(String shard, String tenant) throws SQLException {
		try (Connection c = topology.shard(shard).dataSource().getConnection();
				PreparedStatement ps = c
					.prepareStatement("SELECT title FROM pg_ticket WHERE tenant_id = ? ORDER BY priority, id")) {
			ps.setString(1, tenant);
			List<String> titles = new ArrayList<>();
			try (ResultSet rs = ps.executeQuery()) {
				while (rs.next()) {
					titles.add(rs.getString(1));
				}
			}
			return titles;
		}
	}

	static List<String> titlesOf(List<Ticket> list) {
		return list.stream().map(Ticket::getTitle).toList();
	}

	@Nested
	@DisplayName("on a fresh route, the first statement sees the tenant's rows only")
	class FreshRoute {

		@Test
		@DisplayName("a derived query returns the tenant's tickets, not another tenant's of the same title on the same shard")
		void derivedQuery() throws Exception {
			String tenant = tenantWithTickets("jpa-derived", "same", "other", "same");
			String neighbour = tenantWithTickets("jpa-derived-n", "same");

			List<Ticket> found = as(tenant, () -> service.byTitle("same"));

			assertThat(found).hasSize(2).allSatisfy(t -> {
				assertThat(t.getTenantId()).isEqualTo(tenant);
				assertThat(t.getTitle()).isEqualTo("same");
			});
			assertThat(as(neighbour, () -> service.byTitle("same"))).singleElement()
				.extracting(Ticket::getTenantId)
				.isEqualTo(neighbour);
		}

		@Test
		@DisplayName("a JPQL query with a named parameter returns the tenant's tickets in order")
		void jpqlQuery() throws Exception {
			String tenant = tenantWithTickets("jpa-jpql", "p1", "p2", "p3", "p4");
			tenantWithTickets("jpa-jpql-n", "n1", "n2", "n3", "n4");

			assertThat(titlesOf(as(tenant, () -> service.urgent(3)))).containsExactly("p3", "p4");
		}

		@Test
		@DisplayName("a page (select with limit and offset, then a count query) has the tenant's rows and total")
		void pageAndCount() throws Exception {
			String tenant = tenantWithTickets("jpa-page", "p1", "p2", "p3", "p4", "p5");
			tenantWithTickets("jpa-page-n", "n1", "n2", "n3", "n4", "n5", "n6");

			Page<Ticket> page = as(tenant, () -> service.page(2, 1, 2));

			assertThat(titlesOf(page.getContent())).containsExactly("p4", "p5");
			assertThat(page.getTotalElements()).isEqualTo(4);
			assertThat(page.getContent()).allSatisfy(t -> assertThat(t.getTenantId()).isEqualTo(tenant));
		}

		@Test
		@DisplayName("a Stream<T> read in batches of a fetch size returns all of the tenant's tickets")
		void streamWithFetchSize() throws Exception {
			String tenant = tenantWithTickets("jpa-stream", "s1", "s2", "s3", "s4", "s5");
			tenantWithTickets("jpa-stream-n", "n1", "n2");

			assertThat(as(tenant, service::streamTitles)).containsExactly("s1", "s2", "s3", "s4", "s5");
		}

		@Test
		@DisplayName("a pessimistic write lock (select ... for no key update) first, then the locked ticket is updated")
		void pessimisticLockThenUpdate() throws Exception {
			String tenant = tenantWithTickets("jpa-lock", "before");
			long id = as(tenant, () -> service.byTitle("before").get(0).getId());

			Ticket locked = as(tenant, () -> service.lockAndRetitle(id, "after"));

			assertThat(locked.getTenantId()).isEqualTo(tenant);
			assertThat(titles("shard-1", tenant)).containsExactly("after");
		}

		@Test
		@DisplayName("a pessimistic write lock with a lock timeout hint first, then the locked ticket is updated")
		void pessimisticLockWithTimeoutThenUpdate() throws Exception {
			String tenant = tenantWithTickets("jpa-lock-to", "before");
			long id = as(tenant, () -> service.byTitle("before").get(0).getId());

			Ticket locked = as(tenant, () -> service.lockWithTimeoutAndRetitle(id, "after"));

			assertThat(locked.getTenantId()).isEqualTo(tenant);
			assertThat(titles("shard-1", tenant)).containsExactly("after");
		}

		@Test
		@DisplayName("a SEQUENCE id (select nextval first), one entity and a batch of seven, lands with the tenant")
		void sequenceIds() throws Exception {
			String tenant = tenantWithTickets("jpa-seq");

			Ticket one = as(tenant, () -> service.open("one", 1));
			List<Ticket> seven = as(tenant, () -> service.openAll(List.of("a", "b", "c", "d", "e", "f", "g")));

			assertThat(one.getId()).isNotNull();
			assertThat(one.getTenantId()).isEqualTo(tenant);
			assertThat(seven).extracting(Ticket::getId).doesNotContainNull().doesNotHaveDuplicates();
			assertThat(titles("shard-1", tenant)).containsExactlyInAnyOrder("one", "a", "b", "c", "d", "e", "f", "g");
		}

		@Test
		@DisplayName("an IDENTITY id (the insert first, returning the key) lands with the tenant")
		void identityId() throws Exception {
			String tenant = tenantWithTickets("jpa-identity");

			Remark remark = as(tenant, () -> service.remark("hello"));

			assertThat(remark.getId()).isNotNull();
			assertThat(remark.getTenantId()).isEqualTo(tenant);
			assertThat(rows("shard-1", "pg_remark", tenant)).isEqualTo(1);
		}

		@Test
		@DisplayName("TABLE ids (isolated work on a second connection of the tenant, committed on its own) land with the tenant")
		void tableIds() throws Exception {
			String tenant = tenantWithTickets("jpa-table-ids");

			List<Badge> badges = as(tenant, () -> service.award(List.of("gold", "silver", "bronze")));

			assertThat(badges).extracting(Badge::getId).doesNotContainNull().doesNotHaveDuplicates();
			assertThat(badges).allSatisfy(b -> assertThat(b.getTenantId()).isEqualTo(tenant));
			assertThat(rows("shard-1", "pg_badge", tenant)).isEqualTo(3);
		}

		@Test
		@DisplayName("batched inserts of UUID entities first land with the tenant")
		void batchedInserts() throws Exception {
			String tenant = tenantWithTickets("jpa-batch");

			List<Parcel> parcels = as(tenant, () -> service.ship(List.of("1", "2", "3", "4", "5", "6", "7")));

			assertThat(parcels).allSatisfy(p -> assertThat(p.getTenantId()).isEqualTo(tenant));
			assertThat(rows("shard-1", "pg_parcel", tenant)).isEqualTo(7);
		}

		@Test
		@DisplayName("a native query sees the session's tenant, with and without a ';' inside a string literal")
		void nativeQueries() throws Exception {
			String tenant = tenantWithTickets("jpa-native", "a", "not;this", "b");
			tenantWithTickets("jpa-native-n", "n");

			assertThat(titlesOf(as(tenant, service::nativeBySessionTenant))).containsExactly("a", "not;this", "b");
			assertThat(titlesOf(as(tenant, service::nativeWithSemicolonLiteral))).containsExactly("a", "b");
		}

		@Test
		@DisplayName("a JPQL bulk update first changes the tenant's tickets only")
		void bulkUpdate() throws Exception {
			String tenant = tenantWithTickets("jpa-bulk", "a", "b");
			String neighbour = tenantWithTickets("jpa-bulk-n", "n");

			assertThat(as(tenant, () -> service.bumpAll(10))).isEqualTo(2);

			assertThat(as(tenant, () -> service.urgent(11))).extracting(Ticket::getPriority).containsExactly(11, 12);
			assertThat(as(neighbour, () -> service.urgent(1))).extracting(Ticket::getPriority).containsExactly(1);
		}

		@Test
		@DisplayName("a JDBC savepoint first: a row rolled back to it is gone, the session keeps its tenant, later rows land")
		void savepointFirst() throws Exception {
			String tenant = tenantWithTickets("jpa-savepoint");

			TicketService.Seen seen = as(tenant, () -> service.savepointFirst("undone", "kept"));

			assertThat(seen.tenant()).isEqualTo(tenant);
			assertThat(titles("shard-1", tenant)).containsExactly("kept");
		}

		@Test
		@DisplayName("the same first query in ten transactions in a row (pgjdbc switches to server-prepared statements after five) keeps returning the tenant's rows")
		void repeatedFirstQuery() throws Exception {
			String tenant = tenantWithTickets("jpa-repeat", "same", "same");
			String neighbour = tenantWithTickets("jpa-repeat-n", "same");

			for (int i = 0; i < 10; i++) {
				String as = i % 2 == 0 ? tenant : neighbour;
				assertThat(as(as, () -> service.byTitle("same"))).as("transaction %d", i)
					.hasSize(i % 2 == 0 ? 2 : 1)
					.allSatisfy(t -> assertThat(t.getTenantId()).isEqualTo(as));
			}
			assertThat(titles("shard-1", tenant)).containsExactly("same", "same");
		}

		@Test
		@DisplayName("writes flushed while a first-query stream (a server-side cursor) is still being read all land")
		void writesWhileStreaming() throws Exception {
			String tenant = tenantWithTickets("jpa-stream-write", "s1", "s2", "s3", "s4", "s5");

			List<Remark> written = as(tenant, service::remarkWhileStreaming);

			assertThat(written).extracting(Remark::getBody).containsExactly("on s1", "on s2", "on s3", "on s4", "on s5");
			assertThat(rows("shard-1", "pg_remark", tenant)).isEqualTo(5);
		}

		@Test
		@DisplayName("a scrollable (insensitive) first query scrolls to its last row and back")
		void scrollInsensitive() throws Exception {
			String tenant = tenantWithTickets("jpa-scroll", "first", "middle", "last");
			tenantWithTickets("jpa-scroll-n", "n1", "n2");

			assertThat(as(tenant, service::scrollLastAndFirst)).containsExactly("last", "first", "3");
		}

		@Test
		@DisplayName("a transaction with a timeout sees the session's tenant")
		void transactionTimeout() throws Exception {
			String tenant = tenantWithTickets("jpa-timeout");

			assertThat(as(tenant, service::seeWithTimeout).tenant()).isEqualTo(tenant);
		}

	}

	@Nested
	@DisplayName("transaction settings: read-only and isolation")
	class TransactionSettings {

		@Test
		@DisplayName("isolation and read-only set on the JDBC connection before the first statement are in force (a begin run at borrow time would have made pgjdbc refuse them)")
		void connectionSettingsBeforeTheFirstStatement() throws Exception {
			String tenant = tenantWithTickets("jpa-conn-settings");

			TicketService.Seen seen = as(tenant,
					() -> service.seeWithConnectionSettings(Connection.TRANSACTION_SERIALIZABLE, true));

			assertThat(seen).isEqualTo(new TicketService.Seen(tenant, "serializable", "on"));
			// The pool resets both when the connection comes back: the next transaction runs with the defaults.
			assertThat(as(tenant, service::see)).isEqualTo(new TicketService.Seen(tenant, "read committed", "off"));
		}

		@Test
		@DisplayName("@Transactional(readOnly = true) runs its first query as the tenant")
		void readOnlyTransaction() throws Exception {
			String tenant = tenantWithTickets("jpa-readonly");

			assertThat(as(tenant, service::seeReadOnly).tenant()).isEqualTo(tenant);
		}

	}

	@Nested
	@DisplayName("JdbcTemplate on the tenant-routing DataSource, inside @Transactional")
	class JdbcTemplateInATransaction {

		@Test
		@DisplayName("queryForObject with an argument (a prepared statement) counts the tenant's rows")
		void preparedStatementWithAnArgument() throws Exception {
			String tenant = tenantWithTickets("jpa-jdbc-args", "x", "y", "x");

			assertThat(as(tenant, () -> service.jdbcCount("x"))).isEqualTo(2);
		}

		@Test
		@DisplayName("a query without arguments (a plain statement) lists the tenant's rows")
		void plainStatement() throws Exception {
			String tenant = tenantWithTickets("jpa-jdbc-plain", "x", "y");
			tenantWithTickets("jpa-jdbc-plain-n", "n");

			assertThat(as(tenant, service::jdbcTitles)).containsExactly("x", "y");
		}

		@Test
		@DisplayName("null arguments of unknown type, first and second, bind to the query's own parameters")
		void nullArguments() throws Exception {
			String tenant = tenantWithTickets("jpa-jdbc-null", "a", "b");

			assertThat(as(tenant, () -> service.jdbcCountWithNullArgument(null))).isEqualTo(2);
			assertThat(as(tenant, () -> service.jdbcCountWithNullArgument("b"))).isEqualTo(1);
			assertThat(as(tenant, () -> service.jdbcCountWithSecondNullArgument(1, null))).isEqualTo(1);
			assertThat(as(tenant, () -> service.jdbcCountWithSecondNullArgument(1, "b"))).isZero();
		}

	}

	@Nested
	@DisplayName("after the transaction's first write, a native write of another tenant's row is still rejected")
	class WritesBeyondTheFencedTenant {

		/** The neighbour's only ticket, on the same shard. */
		private long neighboursTicket(String neighbour) throws Exception {
			return as(neighbour, () -> service.byTitle("theirs").get(0).getId());
		}

		private void assertRejectedAndNothingWritten(String tenant, String neighbour, Throwable failure)
				throws SQLException {
			assertThat(failure).isNotNull();
			assertThat(FenceRejection.find(failure)).as("fence rejection in %s", failure).isPresent();
			assertThat(titles("shard-1", tenant)).isEmpty();
			assertThat(titles("shard-1", neighbour)).containsExactly("theirs");
		}

		@Test
		@DisplayName("an update of the neighbour's row by id")
		void updateOfAnotherTenantsRow() throws Exception {
			String tenant = tenantWithTickets("jpa-beyond-upd");
			String neighbour = tenantWithTickets("jpa-beyond-upd-n", "theirs");
			long theirs = neighboursTicket(neighbour);

			Throwable failure = catchThrowable(() -> as(tenant,
					() -> {
						service.writeOwnThen("mine", r -> r.retitleNative(theirs, "hijacked"));
						return null;
					}));

			assertRejectedAndNothingWritten(tenant, neighbour, failure);
		}

		@Test
		@DisplayName("an insert of a row for the neighbour")
		void insertForAnotherTenant() throws Exception {
			String tenant = tenantWithTickets("jpa-beyond-ins");
			String neighbour = tenantWithTickets("jpa-beyond-ins-n", "theirs");

			Throwable failure = catchThrowable(() -> as(tenant,
					() -> {
						service.writeOwnThen("mine", r -> r.insertNative(neighbour, "planted"));
						return null;
					}));

			assertRejectedAndNothingWritten(tenant, neighbour, failure);
		}

		@Test
		@DisplayName("an update handing the tenant's own row to the neighbour")
		void reassignmentToAnotherTenant() throws Exception {
			String tenant = tenantWithTickets("jpa-beyond-re");
			String neighbour = tenantWithTickets("jpa-beyond-re-n", "theirs");

			Throwable failure = catchThrowable(() -> as(tenant, () -> {
				service.writeOwnThen("mine", r -> r.reassignNative(r.findByTitleOrderById("mine").get(0).getId(),
						neighbour));
				return null;
			}));

			assertRejectedAndNothingWritten(tenant, neighbour, failure);
		}

	}

	@Nested
	@DisplayName("on a stale route, each kind of first statement is rejected by the old owner and retried on the new one")
	class StaleRoute {

		@Test
		@DisplayName("a derived query")
		void derivedQuery() throws Exception {
			String tenant = tenantWithTickets("stale-derived", "same", "other", "same");

			List<Ticket> found = afterAMoveTheApplicationMissed(tenant, () -> service.byTitle("same"));

			assertThat(found).hasSize(2).allSatisfy(t -> assertThat(t.getTenantId()).isEqualTo(tenant));
			assertThat(service.bodyRuns()).isEqualTo(2);
		}

		@Test
		@DisplayName("a repository call that is its own transaction (and retry boundary)")
		void repositoryCall() throws Exception {
			String tenant = tenantWithTickets("stale-repo", "same", "other", "same");

			List<Ticket> found = afterAMoveTheApplicationMissed(tenant, () -> tickets.findByTitleOrderById("same"));

			assertThat(found).hasSize(2).allSatisfy(t -> assertThat(t.getTenantId()).isEqualTo(tenant));
		}

		@Test
		@DisplayName("a JPQL query")
		void jpqlQuery() throws Exception {
			String tenant = tenantWithTickets("stale-jpql", "p1", "p2", "p3");

			assertThat(titlesOf(afterAMoveTheApplicationMissed(tenant, () -> service.urgent(2)))).containsExactly("p2",
					"p3");
		}

		@Test
		@DisplayName("a page and its count query in a read-only transaction")
		void pageAndCount() throws Exception {
			String tenant = tenantWithTickets("stale-page", "p1", "p2", "p3", "p4", "p5");

			Page<Ticket> page = afterAMoveTheApplicationMissed(tenant, () -> service.page(2, 1, 2));

			assertThat(titlesOf(page.getContent())).containsExactly("p4", "p5");
			assertThat(page.getTotalElements()).isEqualTo(4);
		}

		@Test
		@DisplayName("a Stream<T> with a fetch size")
		void streamWithFetchSize() throws Exception {
			String tenant = tenantWithTickets("stale-stream", "s1", "s2", "s3", "s4", "s5");

			assertThat(afterAMoveTheApplicationMissed(tenant, service::streamTitles)).containsExactly("s1", "s2", "s3",
					"s4", "s5");
		}

		@Test
		@DisplayName("a pessimistic write lock, then an update of the locked row")
		void pessimisticLock() throws Exception {
			String tenant = tenantWithTickets("stale-lock", "before");
			long id = as(tenant, () -> service.byTitle("before").get(0).getId());

			afterAMoveTheApplicationMissed(tenant, () -> service.lockAndRetitle(id, "after"));

			assertThat(titles("shard-2", tenant)).containsExactly("after");
			assertThat(rows("shard-1", "pg_ticket", tenant)).isZero();
		}

		@Test
		@DisplayName("a pessimistic write lock with a lock timeout hint, then an update of the locked row")
		void pessimisticLockWithTimeout() throws Exception {
			String tenant = tenantWithTickets("stale-lock-to", "before");
			long id = as(tenant, () -> service.byTitle("before").get(0).getId());

			afterAMoveTheApplicationMissed(tenant, () -> service.lockWithTimeoutAndRetitle(id, "after"));

			assertThat(titles("shard-2", tenant)).containsExactly("after");
			assertThat(rows("shard-1", "pg_ticket", tenant)).isZero();
		}

		@Test
		@DisplayName("select nextval for a SEQUENCE id, then the insert")
		void sequenceId() throws Exception {
			String tenant = tenantWithTickets("stale-seq", "old");

			Ticket ticket = afterAMoveTheApplicationMissed(tenant, () -> service.open("new", 2));

			assertThat(ticket.getTenantId()).isEqualTo(tenant);
			assertThat(service.bodyRuns()).isEqualTo(2);
			assertThat(titles("shard-2", tenant)).containsExactly("old", "new");
			assertThat(rows("shard-1", "pg_ticket", tenant)).isZero();
		}

		@Test
		@DisplayName("select nextval for each of a batch of SEQUENCE ids, then batched inserts")
		void sequenceIdsInABatch() throws Exception {
			String tenant = tenantWithTickets("stale-seq-batch");

			afterAMoveTheApplicationMissed(tenant, () -> service.openAll(List.of("a", "b", "c", "d", "e", "f", "g")));

			assertThat(titles("shard-2", tenant)).containsExactlyInAnyOrder("a", "b", "c", "d", "e", "f", "g");
			assertThat(rows("shard-1", "pg_ticket", tenant)).isZero();
		}

		@Test
		@DisplayName("an IDENTITY insert returning its key")
		void identityInsert() throws Exception {
			String tenant = tenantWithTickets("stale-identity");

			Remark remark = afterAMoveTheApplicationMissed(tenant, () -> service.remark("hello"));

			assertThat(remark.getTenantId()).isEqualTo(tenant);
			assertThat(rows("shard-2", "pg_remark", tenant)).isEqualTo(1);
			assertThat(rows("shard-1", "pg_remark", tenant)).isZero();
		}

		@Test
		@DisplayName("Hibernate's isolated work fetching TABLE ids on a second connection")
		void tableIds() throws Exception {
			String tenant = tenantWithTickets("stale-table-ids");

			List<Badge> badges = afterAMoveTheApplicationMissed(tenant, () -> service.award(List.of("gold", "silver")));

			assertThat(badges).allSatisfy(b -> assertThat(b.getTenantId()).isEqualTo(tenant));
			assertThat(rows("shard-2", "pg_badge", tenant)).isEqualTo(2);
			assertThat(rows("shard-1", "pg_badge", tenant)).isZero();
		}

		@Test
		@DisplayName("batched inserts of UUID entities")
		void batchedInserts() throws Exception {
			String tenant = tenantWithTickets("stale-batch");

			afterAMoveTheApplicationMissed(tenant, () -> service.ship(List.of("1", "2", "3", "4", "5", "6", "7")));

			assertThat(rows("shard-2", "pg_parcel", tenant)).isEqualTo(7);
			assertThat(rows("shard-1", "pg_parcel", tenant)).isZero();
		}

		@Test
		@DisplayName("a native query with a ';' inside a string literal")
		void nativeQueryWithASemicolonLiteral() throws Exception {
			String tenant = tenantWithTickets("stale-native-sc", "a", "not;this");

			assertThat(titlesOf(afterAMoveTheApplicationMissed(tenant, service::nativeWithSemicolonLiteral)))
				.containsExactly("a");
		}

		@Test
		@DisplayName("a native query")
		void nativeQuery() throws Exception {
			String tenant = tenantWithTickets("stale-native", "a", "b");

			assertThat(titlesOf(afterAMoveTheApplicationMissed(tenant, service::nativeBySessionTenant)))
				.containsExactly("a", "b");
		}

		@Test
		@DisplayName("JdbcTemplate.queryForObject with an argument")
		void jdbcTemplateWithAnArgument() throws Exception {
			String tenant = tenantWithTickets("stale-jdbc-args", "x", "y", "x");

			assertThat(afterAMoveTheApplicationMissed(tenant, () -> service.jdbcCount("x"))).isEqualTo(2);
		}

		@Test
		@DisplayName("a JdbcTemplate query without arguments (createStatement)")
		void jdbcTemplateWithoutArguments() throws Exception {
			String tenant = tenantWithTickets("stale-jdbc-plain", "x", "y");

			assertThat(afterAMoveTheApplicationMissed(tenant, service::jdbcTitles)).containsExactly("x", "y");
		}

		@Test
		@DisplayName("a JPQL bulk update")
		void bulkUpdate() throws Exception {
			String tenant = tenantWithTickets("stale-bulk", "a", "b");

			assertThat(afterAMoveTheApplicationMissed(tenant, () -> service.bumpAll(10))).isEqualTo(2);
			assertThat(service.bodyRuns()).isEqualTo(2);
			assertThat(titles("shard-2", tenant)).containsExactly("a", "b");
			assertThat(as(tenant, () -> service.urgent(11))).extracting(Ticket::getPriority).containsExactly(11, 12);
		}

		@Test
		@DisplayName("a JDBC savepoint")
		void savepoint() throws Exception {
			String tenant = tenantWithTickets("stale-savepoint");

			TicketService.Seen seen = afterAMoveTheApplicationMissed(tenant,
					() -> service.savepointFirst("undone", "kept"));

			assertThat(seen.tenant()).isEqualTo(tenant);
			assertThat(titles("shard-2", tenant)).containsExactly("kept");
			assertThat(rows("shard-1", "pg_ticket", tenant)).isZero();
		}

		@Test
		@DisplayName("a read-only transaction's first query")
		void readOnlyTransaction() throws Exception {
			String tenant = tenantWithTickets("stale-readonly");

			assertThat(afterAMoveTheApplicationMissed(tenant, service::seeReadOnly).tenant()).isEqualTo(tenant);
		}

		@Test
		@DisplayName("isolation and read-only set on the connection before the first query")
		void connectionSettings() throws Exception {
			String tenant = tenantWithTickets("stale-conn-settings");

			TicketService.Seen seen = afterAMoveTheApplicationMissed(tenant,
					() -> service.seeWithConnectionSettings(Connection.TRANSACTION_REPEATABLE_READ, true));

			assertThat(seen).isEqualTo(new TicketService.Seen(tenant, "repeatable read", "on"));
		}

	}

	@Nested
	@TestInstance(TestInstance.Lifecycle.PER_CLASS)
	@DisplayName("with SQL comments (hibernate.use_sql_comments), statements no longer start with select and still are fenced")
	class SqlComments {

		ConfigurableApplicationContext commented;

		@BeforeAll
		void start() {
			this.commented = PostgresBootJpaPathsTest.start("pg-jpa-comments",
					"spring.jpa.properties.hibernate.use_sql_comments=true");
		}

		@AfterAll
		void stop() {
			if (this.commented != null) {
				this.commented.close();
			}
		}

		@Test
		@DisplayName("a derived query returns the tenant's tickets only")
		void derivedQuery() throws Exception {
			TicketService commentedService = this.commented.getBean(TicketService.class);
			String tenant = tenantWithTickets(this.commented, "jpa-comments", "same", "same");
			tenantWithTickets(this.commented, "jpa-comments-n", "same");

			assertThat(as(tenant, () -> commentedService.byTitle("same"))).hasSize(2)
				.allSatisfy(t -> assertThat(t.getTenantId()).isEqualTo(tenant));
			assertThat(titlesOf(as(tenant, commentedService::nativeBySessionTenant))).containsExactly("same", "same");
		}

		@Test
		@DisplayName("on a stale route, a derived query and a SEQUENCE insert are rejected and retried on the new owner")
		void staleRoute() throws Exception {
			TicketService commentedService = this.commented.getBean(TicketService.class);
			String tenant = tenantWithTickets(this.commented, "stale-comments", "old");

			assertThat(afterAMoveTheApplicationMissed(this.commented, tenant, () -> commentedService.byTitle("old")))
				.singleElement()
				.extracting(Ticket::getTenantId)
				.isEqualTo(tenant);
			String other = tenantWithTickets(this.commented, "stale-comments-seq", "old");
			afterAMoveTheApplicationMissed(this.commented, other, () -> commentedService.open("new", 2));
			assertThat(titles("shard-2", other)).containsExactly("old", "new");
			assertThat(rows("shard-1", "pg_ticket", other)).isZero();
		}

	}

	@Nested
	@TestInstance(TestInstance.Lifecycle.PER_CLASS)
	@DisplayName("with pgjdbc's simple query mode (preferQueryMode=simple, as behind PgBouncer) and hibernate.connection.provider_disables_autocommit")
	class SimpleQueryModeAndProviderDisablesAutocommit {

		ConfigurableApplicationContext tuned;

		@BeforeAll
		void start() {
			List<String> extra = new ArrayList<>(
					List.of("spring.jpa.properties.hibernate.connection.provider_disables_autocommit=true"));
			for (String shard : PostgresCluster.SHARD_IDS) {
				extra.add("shard-tenancy.shards." + shard + ".url=" + cluster.shard(shard).jdbcUrl()
						+ "?preferQueryMode=simple");
			}
			this.tuned = PostgresBootJpaPathsTest.start("pg-jpa-tuned", extra.toArray(String[]::new));
		}

		@AfterAll
		void stop() {
			if (this.tuned != null) {
				this.tuned.close();
			}
		}

		@Test
		@DisplayName("a derived query with a parameter, a stream with a fetch size and a JdbcTemplate query see the tenant's rows only")
		void queries() throws Exception {
			TicketService tunedService = this.tuned.getBean(TicketService.class);
			String tenant = tenantWithTickets(this.tuned, "jpa-tuned", "it's", "b", "it's");
			tenantWithTickets(this.tuned, "jpa-tuned-n", "it's");

			assertThat(as(tenant, () -> tunedService.byTitle("it's"))).hasSize(2)
				.allSatisfy(t -> assertThat(t.getTenantId()).isEqualTo(tenant));
			assertThat(as(tenant, tunedService::streamTitles)).containsExactly("it's", "b", "it's");
			assertThat(as(tenant, () -> tunedService.jdbcCount("it's"))).isEqualTo(2);
		}

		@Test
		@DisplayName("on a stale route, a derived query and a SEQUENCE insert are rejected and retried on the new owner")
		void staleRoute() throws Exception {
			TicketService tunedService = this.tuned.getBean(TicketService.class);
			String tenant = tenantWithTickets(this.tuned, "stale-tuned", "old");

			assertThat(afterAMoveTheApplicationMissed(this.tuned, tenant, () -> tunedService.byTitle("old")))
				.singleElement()
				.extracting(Ticket::getTenantId)
				.isEqualTo(tenant);
			String other = tenantWithTickets(this.tuned, "stale-tuned-seq", "old");
			afterAMoveTheApplicationMissed(this.tuned, other, () -> tunedService.open("new", 2));
			assertThat(titles("shard-2", other)).containsExactly("old", "new");
			assertThat(rows("shard-1", "pg_ticket", other)).isZero();
		}

	}

	/**
	 * The driver-level ways past the first-query begin that the review found (each failed before the fix): the
	 * driver's own connection through {@code unwrap}, a query at the protocol's parameter limit, parameter metadata.
	 */
	@Nested
	@DisplayName("driver-level access")
	class DriverLevelAccess {

		@Test
		@DisplayName("COPY FROM STDIN through the driver's connection (unwrap(PGConnection.class)) as the first statement lands the rows")
		void copyInAsTheFirstStatement() throws Exception {
			String tenant = tenantWithTickets("gap-copy-in");

			long copied = as(tenant, () -> service.copyParcels(List.of("c1", "c2")));

			assertThat(copied).isEqualTo(2);
			assertThat(rows("shard-1", "pg_parcel", tenant)).isEqualTo(2);
		}

		@Test
		@DisplayName("on a stale route, COPY TO STDOUT through the driver's connection as the first statement is rejected and retried on the new owner")
		void staleCopyOutIsRejected() throws Exception {
			String tenant = tenantWithTickets("gap-copy-out", "x", "y");

			assertThat(afterAMoveTheApplicationMissed(tenant, () -> service.copyTitles(tenant))).containsExactly("x",
					"y");
		}

		@Test
		@DisplayName("a first query with 65,535 parameters (pgjdbc's maximum) runs")
		void firstQueryWithTheMaximumNumberOfParameters() throws Exception {
			String tenant = tenantWithTickets("gap-params", "a", "b");
			List<Long> ids = new ArrayList<>();
			for (String title : List.of("a", "b")) {
				ids.add(as(tenant, () -> service.byTitle(title)).get(0).getId());
			}
			while (ids.size() < 65_535) {
				ids.add((long) -ids.size());
			}

			assertThat(as(tenant, () -> service.jdbcCountOfIds(ids))).isEqualTo(2);
		}

		@Test
		@DisplayName("a first query's ParameterMetaData describes the query's own parameters")
		void firstQueryParameterMetaData() throws Exception {
			String tenant = tenantWithTickets("gap-param-meta");
			DataSource routing = context.getBean(DataSource.class);

			List<Object> described = as(tenant, () -> {
				try (Connection c = routing.getConnection();
						PreparedStatement ps = c.prepareStatement("select title from pg_ticket where id = ? and title = ?")) {
					ParameterMetaData meta = ps.getParameterMetaData();
					return List.of(meta.getParameterCount(), meta.getParameterType(1), meta.getParameterType(2));
				}
			});

			assertThat(described).containsExactly(2, Types.BIGINT, Types.VARCHAR);
		}

	}

}
