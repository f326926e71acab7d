package io.github.shardtenancy.it.routing;

import io.github.shardtenancy.retry.FenceRejection;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.RetriesExhaustedException;
import io.github.shardtenancy.ShardConnectionLostException;
import io.github.shardtenancy.ShardUnavailableException;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.TenantSwitchedException;
import io.github.shardtenancy.boot.retry.ShardTenancyRetry;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.RouterSettings;
import io.github.shardtenancy.RouterStats;
import io.github.shardtenancy.internal.move.Mover;
import io.github.shardtenancy.it.support.AppInstance;
import io.github.shardtenancy.it.support.PgNote;
import io.github.shardtenancy.it.support.PgNotes;
import io.github.shardtenancy.retry.RetrySettings;
import io.github.shardtenancy.testing.pg.PostgresCluster;
import org.awaitility.Awaitility;
import org.hibernate.Session;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The kinds of failure users of comparable systems have reported, each reproduced on real PostgreSQL servers: work
 * that spans a cutover, a tenant switched inside a transaction, a retry storm against a shard that is down, and a
 * genuine serialization failure.
 */
@DisplayName("PostgreSQL: reported failure kinds")
class PostgresFailureKindsTest {

	static final Duration BOUND = Duration.ofSeconds(60);

	static PostgresCluster cluster;

	/** Unique per test: the pools' application_name, looked up in pg_stat_activity. */
	final String appName = PostgresCluster.tenant("kinds-app");

	AppInstance app;

	AppInstance operator;

	SessionFactory sessions;

	final ExecutorService executor = Executors.newCachedThreadPool();

	@BeforeAll
	static void servers() {
		cluster = PostgresCluster.shared();
	}

	@BeforeEach
	void instances() {
		// No watcher and a long sync: the application's cache goes stale on purpose, as a remote instance's would.
		this.app = AppInstance.plain(cluster, this.appName,
				RouterSettings.defaults().withSyncInterval(Duration.ofMinutes(10)), 8);
		this.operator = AppInstance.plain(cluster, "kinds-op", RouterSettings.defaults(), 2);
		this.sessions = PgNotes.sessionFactory(this.app);
	}

	@AfterEach
	void close() throws InterruptedException {
		this.executor.shutdownNow();
		this.executor.awaitTermination(30, TimeUnit.SECONDS);
		this.sessions.close();
		this.app.close();
		this.operator.close();
		cluster.ensureAllRunning();
	}

	ShardTenancyRetry retry(RetrySettings settings) {
		return new ShardTenancyRetry(this.app.router, this.app.router.observer(), settings, List.of());
	}

	/** Moves a tenant with the basic (stop-the-world) mover or the online mover of the operator instance. */
	void move(String mover, String tenant, String target) {
		if ("basic".equals(mover)) {
			this.operator.admin.move(tenant, target);
		}
		else {
			new Mover(this.operator.directory, this.operator.router, this.operator.topology,
					List.of(PostgresCluster.NOTES), "kinds-online", Runnable::run)
				.moveAndWait(tenant, target, MoveSettings.defaults());
		}
	}

	@Nested
	@DisplayName("work that started before a cutover and finishes after it")
	class Cutover {

		@ParameterizedTest(name = "{0} mover")
		@ValueSource(strings = { "basic", "online" })
		@DisplayName("a transaction that persisted one row, paused while the tenant moved, then persisted a second is rejected and retried on the new owner; both rows exist once, on the new owner only")
		void pausedTransactionIsRejectedAndRetriedOnTheNewOwner(String mover) throws Exception {
			String tenant = PostgresCluster.tenant("cut-" + mover);
			operator.admin.create(tenant, "shard-1");
			save(tenant, "seed"); // caches the route on shard-1
			CountDownLatch paused = new CountDownLatch(1);
			CountDownLatch resume = new CountDownLatch(1);
			AtomicInteger attempts = new AtomicInteger();
			List<FenceRejection> rejections = new CopyOnWriteArrayList<>();
			ShardTenancyRetry retry = retry(RetrySettings.defaults());

			Future<?> work = executor.submit(() -> TenantContext.runAs(tenant, () -> retry.run(() -> {
				int attempt = attempts.incrementAndGet();
				try {
					sessions.inTransaction(session -> {
						session.persist(new PgNote("first"));
						if (attempt == 1) {
							paused.countDown();
							await(resume);
						}
						session.persist(new PgNote("second"));
					});
				}
				catch (RuntimeException ex) {
					FenceRejection.find(ex).ifPresent(rejections::add);
					throw ex;
				}
			})));
			assertThat(paused.await(BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
			move(mover, tenant, "shard-2");
			resume.countDown();
			work.get(BOUND.toSeconds(), TimeUnit.SECONDS);

			assertThat(attempts).hasValue(2);
			assertThat(rejections).singleElement().satisfies(r -> {
				assertThat(r.tenantId()).isEqualTo(tenant);
				assertThat(r.shardId()).isEqualTo("shard-1");
				assertThat(r.reason()).isEqualTo("MOVED");
			});
			assertThat(notes("shard-2", tenant, "first")).isEqualTo(1);
			assertThat(notes("shard-2", tenant, "second")).isEqualTo(1);
			assertThat(notes("shard-2", tenant, "seed")).isEqualTo(1);
			assertThat(PgNotes.countNotes(app, "shard-1", tenant)).isZero();
		}

		@ParameterizedTest(name = "{0} mover")
		@ValueSource(strings = { "basic", "online" })
		@DisplayName("a transaction whose first row already reached the shard holds the move back: the move waits for it, it commits, and the move carries both rows to the new owner")
		void flushedWriteIsDrainedByTheMove(String mover) throws Exception {
			String tenant = PostgresCluster.tenant("drain-" + mover);
			operator.admin.create(tenant, "shard-1");
			CountDownLatch paused = new CountDownLatch(1);
			CountDownLatch resume = new CountDownLatch(1);
			AtomicInteger attempts = new AtomicInteger();
			ShardTenancyRetry retry = retry(RetrySettings.defaults());

			Future<?> work = executor.submit(() -> TenantContext.runAs(tenant, () -> retry.run(() -> {
				int attempt = attempts.incrementAndGet();
				sessions.inTransaction(session -> {
					session.persist(new PgNote("first"));
					session.flush(); // the INSERT ran: the fence row is locked by this transaction
					if (attempt == 1) {
						paused.countDown();
						await(resume);
					}
					session.persist(new PgNote("second"));
				});
			})));
			assertThat(paused.await(BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
			Future<?> moving = executor.submit(() -> move(mover, tenant, "shard-2"));
			Awaitility.await("the move waits for the transaction in flight on shard-1").atMost(BOUND)
				.until(() -> waitsForLock("shard-1") || moving.isDone());
			assertThat(moving).as("the move must not finish while the tenant's write is in flight").isNotDone();
			resume.countDown();
			work.get(BOUND.toSeconds(), TimeUnit.SECONDS);
			moving.get(BOUND.toSeconds(), TimeUnit.SECONDS);

			assertThat(attempts).hasValue(1);
			assertThat(notes("shard-2", tenant, "first")).isEqualTo(1);
			assertThat(notes("shard-2", tenant, "second")).isEqualTo(1);
			assertThat(PgNotes.countNotes(app, "shard-1", tenant)).isZero();
		}

	}

	@Nested
	@DisplayName("a connection of one tenant reused for another inside one transaction")
	class TenantSwitch {

		@Test
		@DisplayName("binding a second tenant while the first one's transaction holds its connection is refused before the second tenant's shard is even contacted, and nothing of either commits")
		void bindingAnotherTenantInsideATransactionIsRefused() throws Exception {
			String first = PostgresCluster.tenant("switch-a");
			String second = PostgresCluster.tenant("switch-b");
			operator.admin.create(first, "shard-1");
			operator.admin.create(second, "shard-3");

			Throwable refused = catchThrowable(() -> TenantContext.runAs(first,
					() -> sessions.inTransaction(session -> {
						session.persist(new PgNote("of the first tenant"));
						session.flush();
						TenantContext.runAs(second, () -> sessions.inTransaction(
								inner -> inner.persist(new PgNote("of the second tenant"))));
					})));

			assertThat(refused).isInstanceOfSatisfying(TenantSwitchedException.class, ex -> {
				assertThat(ex.getMessage()).contains(first).contains(second).contains("shard-1");
			});
			assertThat(fenceBegins("shard-3", appName + "-shard-3"))
				.as("no transaction of the second tenant began on its shard").isZero();
			assertThat(PgNotes.countNotes(app, "shard-1", first)).isZero();
			assertThat(PgNotes.countNotes(app, "shard-3", second)).isZero();
		}

		@Test
		@DisplayName("a session opened for one tenant and used while another is bound (a session kept across requests) is refused before it borrows a connection")
		void sessionOfOneTenantUsedForAnotherIsRefused() throws Exception {
			String first = PostgresCluster.tenant("switch-c");
			String second = PostgresCluster.tenant("switch-d");
			operator.admin.create(first, "shard-2");
			operator.admin.create(second, "shard-3");

			Throwable refused = catchThrowable(() -> TenantContext.runAs(second, () -> {
				try (Session session = sessions.withOptions().tenantIdentifier((Object) first).openSession()) {
					session.inTransaction(tx -> session.persist(new PgNote("of the first tenant")));
				}
			}));

			assertThat(refused).isInstanceOfSatisfying(TenantSwitchedException.class,
					ex -> assertThat(ex.getMessage()).contains(first).contains(second));
			assertThat(fenceBegins("shard-2", appName + "-shard-2")).as("no transaction began on the first tenant's shard")
				.isZero();
			assertThat(PgNotes.countNotes(app, "shard-2", first)).isZero();
		}

		@Test
		@DisplayName("a row of another tenant written on a connection bound to the first is refused by the fence (FOREIGN_ROW)")
		void foreignRowOnABoundConnectionIsRefusedByTheFence() throws Exception {
			String first = PostgresCluster.tenant("switch-e");
			String second = PostgresCluster.tenant("switch-f");
			operator.admin.create(first, "shard-1");
			operator.admin.create(second, "shard-1");

			Throwable refused = catchThrowable(() -> app.inTransaction(first,
					c -> {
						PgNotes.insertNote(c, second, "smuggled");
						return null;
					}));

			assertThat(FenceRejection.find(refused)).get().satisfies(r -> {
				assertThat(r.reason()).isEqualTo("FOREIGN_ROW");
				assertThat(r.tenantId()).isEqualTo(first);
			});
			assertThat(PgNotes.countNotes(app, "shard-1", second)).isZero();
		}

	}

	@Nested
	@DisplayName("retry storms against a shard that is down")
	class RetryStorm {

		@Test
		@DisplayName("with shard-3's server stopped, its tenants' callers get RetriesExhaustedException (cause ShardUnavailableException) after the budget, the directory is not read again, and shard-1's tenants commit every write at the first attempt")
		void shardDownExhaustsTheBudgetWithoutHammeringTheDirectory() throws Exception {
			int callers = 6;
			List<String> downTenants = new ArrayList<>();
			List<String> upTenants = new ArrayList<>();
			for (int i = 0; i < callers; i++) {
				downTenants.add(PostgresCluster.tenant("storm-down-" + i));
				upTenants.add(PostgresCluster.tenant("storm-up-" + i));
				operator.admin.create(downTenants.get(i), "shard-3");
				operator.admin.create(upTenants.get(i), "shard-1");
			}
			for (int i = 0; i < callers; i++) {
				save(downTenants.get(i), "before the outage");
				save(upTenants.get(i), "before the outage");
			}
			RetrySettings settings = new RetrySettings(4, Duration.ofMillis(10), 2.0, Duration.ofMillis(50),
					Duration.ofMillis(5), Duration.ofSeconds(10), true);
			ShardTenancyRetry retry = retry(settings);
			RouterStats before = app.router.stats();
			AtomicInteger downAttempts = new AtomicInteger();
			AtomicInteger upAttempts = new AtomicInteger();

			cluster.shard("shard-3").stop();

			List<Future<Throwable>> down = new ArrayList<>();
			List<Future<Throwable>> up = new ArrayList<>();
			for (int i = 0; i < callers; i++) {
				String d = downTenants.get(i);
				String u = upTenants.get(i);
				down.add(executor.submit(() -> catchThrowable(() -> TenantContext.runAs(d, () -> retry.run(() -> {
					downAttempts.incrementAndGet();
					sessions.inTransaction(session -> session.persist(new PgNote("during the outage")));
				})))));
				up.add(executor.submit(() -> catchThrowable(() -> {
					for (int n = 0; n < 5; n++) {
						TenantContext.runAs(u, () -> retry.run(() -> {
							upAttempts.incrementAndGet();
							sessions.inTransaction(session -> session.persist(new PgNote("during the outage")));
						}));
					}
				})));
			}
			for (int i = 0; i < callers; i++) {
				String tenant = downTenants.get(i);
				assertThat(down.get(i).get(BOUND.toSeconds(), TimeUnit.SECONDS))
					.isInstanceOfSatisfying(RetriesExhaustedException.class, ex -> {
						assertThat(ex.attempts()).isEqualTo(settings.maxAttempts());
						assertThat(ex.tenantId()).isEqualTo(tenant);
						assertThat(ex.shardId()).isEqualTo("shard-3");
						assertThat(ex.getCause()).isInstanceOfSatisfying(ShardUnavailableException.class, cause -> {
							assertThat(cause.tenantId()).isEqualTo(tenant);
							assertThat(cause.shardId()).isEqualTo("shard-3");
						});
					});
				assertThat(up.get(i).get(BOUND.toSeconds(), TimeUnit.SECONDS)).isNull();
			}
			RouterStats after = app.router.stats();

			assertThat(downAttempts).hasValue(callers * settings.maxAttempts());
			assertThat(upAttempts).as("every write of the healthy shard's tenants committed at its first attempt")
				.hasValue(callers * 5);
			assertThat(after.directoryReads() - before.directoryReads()).as("directory reads during the storm").isZero();
			assertThat(after.invalidations() - before.invalidations()).isZero();
			for (String u : upTenants) {
				assertThat(PgNotes.countNotes(app, "shard-1", u)).isEqualTo(6);
			}
			cluster.shard("shard-3").start();
			for (String d : downTenants) {
				assertThat(notes("shard-3", d, "before the outage")).isEqualTo(1);
				assertThat(notes("shard-3", d, "during the outage")).isZero();
			}
		}

	}

	@Nested
	@DisplayName("a connection lost in the middle of a transaction")
	class ConnectionLost {

		@Test
		@DisplayName("a backend terminated after the first write reaches the caller as ShardConnectionLostException after one attempt (the outcome of a lost commit is unknown, so it is not retried), and nothing of it was written")
		void terminatedBackendIsReportedAndNotRetried() throws Exception {
			String tenant = PostgresCluster.tenant("lost");
			operator.admin.create(tenant, "shard-2");
			save(tenant, "before");
			AtomicInteger attempts = new AtomicInteger();
			ShardTenancyRetry retry = retry(RetrySettings.defaults());

			Throwable lost = catchThrowable(() -> TenantContext.runAs(tenant, () -> retry.run(() -> {
				attempts.incrementAndGet();
				sessions.inTransaction(session -> {
					session.persist(new PgNote("killed"));
					session.flush();
					int pid = session.doReturningWork(c -> {
						try (java.sql.Statement st = c.createStatement();
								ResultSet rs = st.executeQuery("SELECT pg_backend_pid()")) {
							rs.next();
							return rs.getInt(1);
						}
					});
					activity("shard-2", "SELECT count(*) FROM (SELECT pg_terminate_backend(" + pid + ")) t", null);
					session.persist(new PgNote("after the kill"));
				});
			})));

			assertThat(lost).isInstanceOfSatisfying(ShardConnectionLostException.class, ex -> {
				assertThat(ex.tenantId()).isEqualTo(tenant);
				assertThat(ex.shardId()).isEqualTo("shard-2");
				assertThat(ShardConnectionLostException.isConnectionFailure(ex.getCause())).isTrue();
			});
			assertThat(attempts).hasValue(1);
			assertThat(notes("shard-2", tenant, "killed")).isZero();
			assertThat(notes("shard-2", tenant, "after the kill")).isZero();
			assertThat(notes("shard-2", tenant, "before")).isEqualTo(1);
		}

	}

	@Nested
	@DisplayName("a genuine serialization failure (40001 without the fence marker) under SERIALIZABLE")
	class GenuineSerializationFailure {

		@Test
		@DisplayName("with shard-tenancy.retry.serialization-failures=true it is retried to a commit, and no cache entry is dropped")
		void retriedWhenSwitchedOn() throws Exception {
			WriteSkew skew = writeSkew(true);

			assertThat(skew.loserFailure).isNull();
			assertThat(skew.loserAttempts).hasValue(2);
			assertThat(skew.invalidations).isZero();
			assertThat(skew.directoryReads).isZero();
			assertThat(skew.cachedAfter).isPresent();
			assertThat(PgNotes.countNotes(app, "shard-2", skew.tenant)).isEqualTo(2);
		}

		@Test
		@DisplayName("with shard-tenancy.retry.serialization-failures=false it reaches the caller after one attempt, and no cache entry is dropped")
		void notRetriedWhenSwitchedOff() throws Exception {
			WriteSkew skew = writeSkew(false);

			assertThat(skew.loserFailure).isNotNull();
			assertThat(FenceRejection.find(skew.loserFailure)).isEmpty();
			assertThat(FenceRejection.findSerializationFailure(skew.loserFailure)).get()
				.satisfies(sql -> assertThat(sql.getMessage()).contains("could not serialize access"));
			assertThat(skew.loserAttempts).hasValue(1);
			assertThat(skew.invalidations).isZero();
			assertThat(skew.cachedAfter).isPresent();
			assertThat(PgNotes.countNotes(app, "shard-2", skew.tenant)).isEqualTo(1);
		}

		/**
		 * Two SERIALIZABLE transactions of one tenant each count the tenant's notes and insert one: the classic write
		 * skew. The winner commits first; the loser's insert (or commit) fails with PostgreSQL's own 40001.
		 */
		WriteSkew writeSkew(boolean retrySerializationFailures) throws Exception {
			String tenant = PostgresCluster.tenant("skew");
			operator.admin.create(tenant, "shard-2");
			try (AppInstance serializable = AppInstance.serializable(cluster, "kinds-serializable",
					RouterSettings.defaults().withSyncInterval(Duration.ofMinutes(10)), 4);
					SessionFactory factory = PgNotes.sessionFactory(serializable)) {
				RetrySettings d = RetrySettings.defaults();
				ShardTenancyRetry retry = new ShardTenancyRetry(serializable.router, serializable.router.observer(), new RetrySettings(d.maxAttempts(),
						d.initialDelay(), d.multiplier(), d.maxDelay(), d.jitter(), d.freezeWait(),
						retrySerializationFailures), List.of());
				TenantContext.runAs(tenant, () -> retry.run(() -> factory.inTransaction(s -> count(s))));
				RouterStats before = serializable.router.stats();
				CountDownLatch loserRead = new CountDownLatch(1);
				CountDownLatch winnerCommitted = new CountDownLatch(1);
				AtomicInteger loserAttempts = new AtomicInteger();

				Future<Throwable> loser = executor.submit(() -> catchThrowable(() -> TenantContext.runAs(tenant,
						() -> retry.run(() -> {
							int attempt = loserAttempts.incrementAndGet();
							factory.inTransaction(s -> {
								long seen = count(s);
								if (attempt == 1) {
									loserRead.countDown();
									await(winnerCommitted);
								}
								s.persist(new PgNote("loser saw " + seen));
								s.flush();
							});
						}))));
				assertThat(loserRead.await(BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
				TenantContext.runAs(tenant, () -> factory.inTransaction(s -> {
					long seen = count(s);
					s.persist(new PgNote("winner saw " + seen));
				}));
				winnerCommitted.countDown();
				Throwable failure = loser.get(BOUND.toSeconds(), TimeUnit.SECONDS);
				RouterStats after = serializable.router.stats();
				return new WriteSkew(tenant, failure, loserAttempts, after.invalidations() - before.invalidations(),
						after.directoryReads() - before.directoryReads(), serializable.router.cached(tenant));
			}
		}

		record WriteSkew(String tenant, Throwable loserFailure, AtomicInteger loserAttempts, long invalidations,
				long directoryReads, java.util.Optional<DirectoryEntry> cachedAfter) {
		}

	}

	/** Saves one note for the tenant through Hibernate with the default retry. */
	void save(String tenant, String text) {
		ShardTenancyRetry retry = retry(RetrySettings.defaults());
		TenantContext.runAs(tenant,
				() -> retry.run(() -> this.sessions.inTransaction(session -> session.persist(new PgNote(text)))));
	}

	static long count(Session session) {
		return session.createQuery("select count(n) from PgNote n", Long.class).getSingleResult();
	}

	HikariDataSource pool(String shardId) {
		return (HikariDataSource) this.app.topology.shard(shardId).dataSource();
	}

	long notes(String shardId, String tenant, String text) throws SQLException {
		try (HikariDataSource ds = cluster.pool(cluster.shard(shardId), 1, "kinds-count");
				Connection c = ds.getConnection();
				PreparedStatement ps = c
					.prepareStatement("SELECT count(*) FROM pg_note WHERE tenant_id = ? AND text = ?")) {
			ps.setString(1, tenant);
			ps.setString(2, text);
			try (ResultSet rs = ps.executeQuery()) {
				rs.next();
				return rs.getLong(1);
			}
		}
	}

	/** Whether a connection of the operator's (the mover's) pools on the shard waits for a lock. */
	static boolean waitsForLock(String shardId) {
		return activity(shardId,
				"SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND application_name LIKE 'kinds-op%'",
				null) > 0;
	}

	/**
	 * @return how many connections of the named pool on the shard have run a fence begin as their latest statement
	 * (a connection's latest statement stays in {@code pg_stat_activity.query} while it is idle)
	 */
	static long fenceBegins(String shardId, String applicationName) {
		return activity(shardId, "SELECT count(*) FROM pg_stat_activity WHERE application_name = ? "
				+ "AND query ILIKE '%shard_fence_begin%'", applicationName);
	}

	static long activity(String shardId, String sql, String parameter) {
		try (HikariDataSource ds = cluster.pool(cluster.shard(shardId), 1, "kinds-activity");
				Connection c = ds.getConnection();
				PreparedStatement ps = c.prepareStatement(sql)) {
			if (parameter != null) {
				ps.setString(1, parameter);
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

	static void await(CountDownLatch latch) {
		try {
			if (!latch.await(BOUND.toSeconds(), TimeUnit.SECONDS)) {
				throw new IllegalStateException("Not released within " + BOUND);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
