package io.github.shardtenancy.boot;

import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.ShardTopology;
import io.github.shardtenancy.TenantRouter;
import io.github.shardtenancy.retry.FenceRejection;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.shardtenancy.RetriesExhaustedException;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.UnknownTenantException;
import io.github.shardtenancy.TenantTable;
import io.github.shardtenancy.TenantMover;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.boot.retry.ShardTenancyRetry;
import io.github.shardtenancy.boot.retry.ShardTenancyRetryAdvisor;
import io.github.shardtenancy.boot.testapp.InnerService;
import io.github.shardtenancy.boot.testapp.Note;
import io.github.shardtenancy.boot.testapp.NoteRepository;
import io.github.shardtenancy.boot.testapp.NoteService;
import io.github.shardtenancy.boot.testapp.OuterService;
import io.github.shardtenancy.boot.testapp.RecordingRetryListener;
import io.github.shardtenancy.boot.testapp.TestApplication;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.RouterSettings;
import io.github.shardtenancy.internal.Internals;
import io.github.shardtenancy.internal.fence.FenceState;
import io.github.shardtenancy.internal.fence.ShardFence;
import io.github.shardtenancy.internal.move.Mover;
import io.github.shardtenancy.internal.routing.Router;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.retry.RetrySettings;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.PessimisticLockException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.dao.CannotAcquireLockException;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The automatic retry in a real application: Spring Boot, Hibernate, Spring Data JPA and two H2 shards, with
 * rejections produced by the real shard fence.
 */
@SpringBootTest(classes = TestApplication.class, properties = {
		"shard-tenancy.web.access.policy=none",
		"shard-tenancy.directory.url=jdbc:h2:mem:retry-directory;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.shards.shard-1.url=jdbc:h2:mem:retry-shard-1;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.shards.shard-2.url=jdbc:h2:mem:retry-shard-2;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.liquibase.shard-changelogs=db/test-shard.xml",
		"shard-tenancy.sync.interval=1h",
		"shard-tenancy.retry.max-delay=50ms",
		"shard-tenancy.actor=tests" })
class AutomaticRetryTests {

	private static final AtomicInteger TENANTS = new AtomicInteger();

	@Autowired
	private TenantAdmin admin;

	@Autowired
	private TenantRouter router;

	@Autowired
	private ShardTopology topology;

	@Autowired
	private ShardTenancy tenancy;

	@Autowired
	private NoteRepository notes;

	@Autowired
	private NoteService noteService;

	@Autowired
	private OuterService outer;

	@Autowired
	private InnerService inner;

	@Autowired
	private RecordingRetryListener listener;

	@Autowired
	private ShardTenancyRetry retry;

	@Autowired
	private TransactionTemplate transactionTemplate;

	@Autowired
	private EntityManagerFactory entityManagerFactory;

	private String tenant;

	private DirectoryEntry created;

	private TenantContext.Scope scope;

	@BeforeEach
	void createTenant() {
		this.tenant = "tenant-" + TENANTS.incrementAndGet();
		this.created = this.admin.create(this.tenant, "shard-1");
		this.listener.reset();
		this.noteService.reset();
		this.outer.reset();
		this.inner.reset();
		this.scope = TenantContext.bind(this.tenant);
	}

	@AfterEach
	void unbind() {
		this.scope.close();
	}

	private void fence(String shardId, FenceState state, long minVersion) {
		ShardFence.set(this.topology.dataSource(shardId), shardId, this.tenant, state, minVersion);
	}

	/**
	 * Raises the tenant's minimum version on shard-1 with a plain UPDATE, without the tenant's fence lock, from inside
	 * the tenant's own transaction: the library's own fence changes take that lock and would wait for this very
	 * transaction. The H2 fence reads the fence row again at every write, so the transaction's next write is rejected
	 * STALE: a rejection inside the inner boundary at every attempt.
	 */
	private void staleInsideTransaction() {
		try (Connection c = this.topology.dataSource("shard-1").getConnection();
				PreparedStatement ps = c.prepareStatement("UPDATE shard_fence SET min_version = ? WHERE tenant_id = ?")) {
			c.setAutoCommit(true);
			ps.setLong(1, this.created.version() + 100);
			ps.setString(2, this.tenant);
			assertThat(ps.executeUpdate()).isEqualTo(1);
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private void freezeUntilFirstRetry() {
		fence("shard-1", FenceState.FROZEN, this.created.version());
		this.listener.beforeRetry((n) -> fence("shard-1", FenceState.OWNED, this.created.version()));
	}

	private long rowsOn(String shardId, String title) throws SQLException {
		try (Connection c = this.topology.dataSource(shardId).getConnection();
				PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM note WHERE tenant_id = ? AND title = ?")) {
			ps.setString(1, this.tenant);
			ps.setString(2, title);
			try (ResultSet rs = ps.executeQuery()) {
				rs.next();
				return rs.getLong(1);
			}
		}
	}

	@Nested
	@DisplayName("each way a fence rejection surfaces is retried")
	class EachSurface {

		@Test
		@DisplayName("a stale route rejected at transaction begin is retried on the new owner after invalidating only that tenant")
		void staleRouterIsRejectedAtBeginAndRetriedOnNewOwner() {
			noteService.persistAndFlush("before the move");
			Router otherInstance = new Router(Internals.directory(tenancy), RouterSettings.defaults());
			new Mover(Internals.directory(tenancy), otherInstance, Internals.topology(tenancy), List.of(new TenantTable("note", "tenant_id")),
					"other-instance", Runnable::run).moveAndWait(tenant, "shard-2", MoveSettings.stopTheWorld());
			assertThat(router.cached(tenant)).get().extracting(DirectoryEntry::shardId).isEqualTo("shard-1");
			long invalidationsBefore = router.stats().invalidations();
			noteService.reset();

			long count = noteService.count();

			assertThat(count).isEqualTo(1);
			assertThat(listener.failures()).hasSize(1);
			assertThat(listener.failures().get(0)).isInstanceOf(CannotCreateTransactionException.class);
			assertThat(FenceRejection.find(listener.failures().get(0))).get()
				.extracting(FenceRejection::reason, FenceRejection::shardId)
				.containsExactly("MOVED", "shard-1");
			assertThat(noteService.runs()).as("the body never ran on the stale shard").isEqualTo(1);
			assertThat(router.stats().invalidations() - invalidationsBefore).isEqualTo(1);
			assertThat(router.cached(tenant)).get().extracting(DirectoryEntry::shardId).isEqualTo("shard-2");
		}

		@Test
		@DisplayName("a repository saveAndFlush of a frozen tenant (CannotAcquireLockException) is retried once the freeze is lifted")
		void frozenTenantRepositoryWriteIsRetried() throws SQLException {
			freezeUntilFirstRetry();

			notes.saveAndFlush(new Note("repository write"));

			assertThat(listener.retries()).isEqualTo(1);
			assertThat(listener.failures()).singleElement().isInstanceOf(CannotAcquireLockException.class);
			assertThat(FenceRejection.find(listener.failures().get(0))).get()
				.extracting(FenceRejection::reason)
				.isEqualTo("FROZEN");
			assertThat(rowsOn("shard-1", "repository write")).isEqualTo(1);
		}

		@Test
		@DisplayName("an explicit em.flush() in a @Transactional service (raw PessimisticLockException) is retried in a fresh persistence context")
		void explicitFlushInTransactionalServiceIsRetried() throws SQLException {
			freezeUntilFirstRetry();

			noteService.persistAndFlush("explicit flush");

			assertThat(listener.failures()).singleElement().isInstanceOf(PessimisticLockException.class);
			assertThat(noteService.runs()).isEqualTo(2);
			assertThat(noteService.sessions()).hasSize(2);
			assertThat(noteService.sessions().get(1)).as("a fresh Hibernate session for the retry")
				.isNotSameAs(noteService.sessions().get(0));
			assertThat(rowsOn("shard-1", "explicit flush")).isEqualTo(1);
		}

		@Test
		@DisplayName("a rejection at commit (flush on commit) is retried")
		void rejectionAtCommitIsRetried() throws SQLException {
			freezeUntilFirstRetry();

			noteService.persistAtCommit("flushed at commit");

			assertThat(listener.failures()).hasSize(1);
			assertThat(FenceRejection.find(listener.failures().get(0))).isPresent();
			assertThat(noteService.runs()).isEqualTo(2);
			assertThat(rowsOn("shard-1", "flushed at commit")).isEqualTo(1);
		}

		@Test
		@DisplayName("a unique violation (23505) is not retried: exactly one attempt")
		void uniqueViolationIsNotRetried() {
			notes.saveAndFlush(new Note("duplicate"));

			assertThatThrownBy(() -> notes.saveAndFlush(new Note("duplicate")))
				.isInstanceOf(DataIntegrityViolationException.class)
				.hasRootCauseInstanceOf(SQLException.class);

			assertThat(listener.failures()).as("exactly one attempt").hasSize(1);
			assertThat(listener.retries()).isZero();
		}

	}

	@Nested
	@DisplayName("only the outermost boundary retries")
	class Nesting {

		@Test
		@DisplayName("outer @Transactional calling inner @Transactional, rejected once: both bodies run exactly twice, no UnexpectedRollbackException")
		void nestedRequiredTransactionsAreRetriedAsAWhole() throws SQLException {
			freezeUntilFirstRetry();

			Note note = outer.createThroughInner("nested");

			assertThat(note.getTitle()).isEqualTo("nested");
			assertThat(outer.runs()).isEqualTo(2);
			assertThat(inner.runs()).isEqualTo(2);
			assertThat(listener.retries()).isEqualTo(1);
			assertThat(rowsOn("shard-1", "nested")).isEqualTo(1);
		}

		@Test
		@DisplayName("outer @Transactional calling inner @Transactional, rejected at every attempt: each body runs exactly max-attempts times (not its square), then RetriesExhaustedException")
		void nestedTransactionsRejectedEveryTimeRunTheBudgetOnce() throws SQLException {
			// Each attempt begins on an OWNED fence; the inner body then raises the fence's minimum version above the
			// route's, so the write is rejected (STALE) inside the inner boundary every time.
			listener.beforeRetry((n) -> fence("shard-1", FenceState.OWNED, created.version()));
			Runnable staleBeforeWrite = AutomaticRetryTests.this::staleInsideTransaction;

			assertThatThrownBy(() -> outer.createThroughInnerAfter("doomed", staleBeforeWrite))
				.isInstanceOfSatisfying(RetriesExhaustedException.class, (ex) -> {
					assertThat(ex.attempts()).isEqualTo(5);
					assertThat(FenceRejection.find(ex.getCause())).get()
						.extracting(FenceRejection::reason)
						.isEqualTo("STALE");
				});
			assertThat(outer.runs()).isEqualTo(5);
			assertThat(inner.runs()).isEqualTo(5);
			assertThat(listener.failures()).hasSize(5);
			assertThat(rowsOn("shard-1", "doomed")).isZero();
		}

		@Test
		@DisplayName("programmatic retry nested in programmatic retry, rejected at every attempt: the body runs exactly max-attempts times")
		void nestedProgrammaticRetriesRejectedEveryTimeRunTheBudgetOnce() throws SQLException {
			listener.beforeRetry((n) -> fence("shard-1", FenceState.OWNED, created.version()));
			AtomicInteger outerRuns = new AtomicInteger();
			AtomicInteger innerRuns = new AtomicInteger();

			assertThatThrownBy(() -> retry.run(() -> {
				outerRuns.incrementAndGet();
				retry.run(() -> transactionTemplate.executeWithoutResult((status) -> {
					innerRuns.incrementAndGet();
					staleInsideTransaction();
					notes.saveAndFlush(new Note("doomed twice"));
				}));
			})).isInstanceOfSatisfying(RetriesExhaustedException.class,
					(ex) -> assertThat(ex.attempts()).isEqualTo(5));
			assertThat(outerRuns).hasValue(5);
			assertThat(innerRuns).hasValue(5);
			assertThat(rowsOn("shard-1", "doomed twice")).isZero();
		}

		@Test
		@DisplayName("programmatic retry inside an active transaction runs the work once and lets the failure propagate")
		void programmaticRetryInsideTransactionRunsOnce() {
			AtomicInteger runs = new AtomicInteger();
			CannotAcquireLockException failure = new CannotAcquireLockException("simulated",
					new SQLException("could not serialize access", "40001"));

			assertThatThrownBy(() -> transactionTemplate.executeWithoutResult((status) -> retry.run(() -> {
				runs.incrementAndGet();
				throw failure;
			}))).isSameAs(failure);

			assertThat(runs).hasValue(1);
		}

		@Test
		@DisplayName("the programmatic retry around a TransactionTemplate retries a frozen write")
		void programmaticRetryAroundTransactionTemplate() throws SQLException {
			freezeUntilFirstRetry();
			AtomicInteger runs = new AtomicInteger();

			Note note = retry.execute(() -> transactionTemplate.execute((status) -> {
				runs.incrementAndGet();
				return notes.saveAndFlush(new Note("programmatic"));
			}));

			assertThat(note.getTitle()).isEqualTo("programmatic");
			assertThat(runs).hasValue(2);
			assertThat(rowsOn("shard-1", "programmatic")).isEqualTo(1);
		}

	}

	@Nested
	@DisplayName("budgets and classification")
	class Budgets {

		@Test
		@DisplayName("a rejection that never clears gives up after max-attempts with RetriesExhaustedException")
		void persistentRejectionExhaustsTheBudget() {
			fence("shard-1", FenceState.MOVED, created.version() + 100);

			assertThatThrownBy(() -> noteService.count()).isInstanceOfSatisfying(RetriesExhaustedException.class,
					(ex) -> {
						assertThat(ex.attempts()).isEqualTo(5);
						assertThat(ex.tenantId()).isEqualTo(tenant);
						assertThat(ex.shardId()).isEqualTo("shard-1");
						assertThat(ex.directoryVersion()).isEqualTo(created.version());
						assertThat(FenceRejection.find(ex.getCause())).get()
							.extracting(FenceRejection::reason)
							.isEqualTo("MOVED");
						assertThat(ex.getMessage()).contains(tenant)
							.contains("shard-1")
							.contains("directory version seen " + created.version());
						assertThat(ex.getSuppressed()).singleElement()
							.isInstanceOf(CannotCreateTransactionException.class);
					});
			assertThat(listener.failures()).hasSize(5);
		}

		@Test
		@DisplayName("a FROZEN rejection keeps being retried beyond max-attempts while the freeze wait lasts")
		void frozenIsRetriedBeyondMaxAttempts() throws SQLException {
			fence("shard-1", FenceState.FROZEN, created.version());
			listener.beforeRetry((n) -> {
				if (n == 7) {
					fence("shard-1", FenceState.OWNED, created.version());
				}
			});

			noteService.persistAndFlush("long freeze");

			assertThat(noteService.runs()).isEqualTo(8);
			assertThat(rowsOn("shard-1", "long freeze")).isEqualTo(1);
		}

		@Test
		@DisplayName("attempts spent waiting out a freeze do not use up the budget of the stale hops that follow it")
		void freezeWaitDoesNotUseUpTheBudgetOfLaterStaleHops() throws SQLException {
			fence("shard-1", FenceState.FROZEN, created.version());
			listener.beforeRetry((n) -> {
				if (n == 7) {
					fence("shard-1", FenceState.MOVED, created.version() + 100);
				}
				if (n == 11) {
					fence("shard-1", FenceState.OWNED, created.version());
				}
			});

			noteService.persistAndFlush("after a long freeze");

			// 7 FROZEN attempts (the body ran and its write was rejected), 4 MOVED (rejected at begin, before the
			// body), then the 12th attempt commits: 4 stale hops fit in a budget of 5 however long the freeze was.
			assertThat(listener.failures()).hasSize(11);
			assertThat(noteService.runs()).isEqualTo(8);
			assertThat(rowsOn("shard-1", "after a long freeze")).isEqualTo(1);
		}

		@Test
		@DisplayName("a genuine serialization failure (40001 without the fence marker) is retried without invalidating the cache")
		void genuineSerializationFailureIsRetriedWithoutInvalidation() {
			long invalidationsBefore = router.stats().invalidations();
			listener.beforeRetry((n) -> {
			});
			CannotAcquireLockException failure = new CannotAcquireLockException("simulated",
					new SQLException("could not serialize access due to concurrent update", "40001"));
			AtomicInteger calls = new AtomicInteger();

			long count = retry.execute(() -> {
				if (calls.incrementAndGet() == 1) {
					noteService.fail(failure);
				}
				return noteService.count();
			});

			assertThat(count).isZero();
			assertThat(calls).hasValue(2);
			assertThat(router.stats().invalidations()).isEqualTo(invalidationsBefore);
		}

		@Test
		@DisplayName("with serialization-failures off, a genuine serialization failure is not retried")
		void genuineSerializationFailureIsNotRetriedWhenSwitchedOff() {
			RetrySettings defaults = RetrySettings.defaults();
			ShardTenancyRetry strict = new ShardTenancyRetry(router, tenancy.observer(), new RetrySettings(defaults.maxAttempts(),
					defaults.initialDelay(), defaults.multiplier(), defaults.maxDelay(), defaults.jitter(),
					defaults.freezeWait(), false), List.of());
			CannotAcquireLockException failure = new CannotAcquireLockException("simulated",
					new SQLException("could not serialize access", "40001"));
			AtomicInteger calls = new AtomicInteger();

			assertThatThrownBy(() -> strict.run(() -> {
				calls.incrementAndGet();
				throw failure;
			})).isSameAs(failure);
			assertThat(calls).hasValue(1);
		}

		@Test
		@DisplayName("an unknown tenant reaches the caller as UnknownTenantException, not wrapped, after one attempt")
		void typedErrorsReachTheCaller() {
			try (TenantContext.Scope unknown = TenantContext.bind("nobody-" + tenant)) {
				assertThatThrownBy(() -> noteService.count()).isInstanceOf(UnknownTenantException.class);
			}
			assertThat(listener.retries()).isZero();
			assertThat(noteService.runs()).isZero();
		}

	}

	@Nested
	@DisplayName("wiring")
	class Wiring {

		@Test
		@DisplayName("the retry advisor wraps the Spring Data repository proxy and the transactional services")
		void advisorWrapsRepositoryAndServices() {
			assertThat(AopUtils.isAopProxy(notes)).isTrue();
			assertThat(((org.springframework.aop.framework.Advised) notes).getAdvisors())
				.anyMatch(ShardTenancyRetryAdvisor.class::isInstance);
			assertThat(((org.springframework.aop.framework.Advised) noteService).getAdvisors())
				.anyMatch(ShardTenancyRetryAdvisor.class::isInstance);
		}

		@Test
		@DisplayName("Hibernate runs multi-tenant with the provider, the resolver and per-transaction connections")
		void hibernatePropertiesAreSet() {
			assertThat(entityManagerFactory.getProperties())
				.containsKey(ShardTenancyHibernatePropertiesCustomizer.CONNECTION_PROVIDER)
				.containsKey(ShardTenancyHibernatePropertiesCustomizer.IDENTIFIER_RESOLVER)
				.containsEntry(ShardTenancyHibernatePropertiesCustomizer.CONNECTION_HANDLING,
						ShardTenancyHibernatePropertiesCustomizer.HANDLING_MODE);
		}

		@Test
		@DisplayName("the fence write check is installed on the discovered tenant table of every shard")
		void writeCheckIsInstalledOnEveryShard() throws SQLException {
			for (String shardId : List.of("shard-1", "shard-2")) {
				try (Connection c = topology.dataSource(shardId).getConnection();
						PreparedStatement ps = c.prepareStatement(
								"SELECT COUNT(DISTINCT TRIGGER_NAME) FROM INFORMATION_SCHEMA.TRIGGERS WHERE TRIGGER_NAME = 'SHARD_FENCE_NOTE'");
						ResultSet rs = ps.executeQuery()) {
					rs.next();
					assertThat(rs.getInt(1)).as(shardId).isEqualTo(1);
				}
			}
		}

	}

}
