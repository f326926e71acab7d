package io.github.shardtenancy.testing.dialect;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

import javax.sql.DataSource;

import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import io.github.shardtenancy.spi.FenceDialect;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

/**
 * The contract of a {@link FenceDialect}, stated through real connections to one shard database: a dialect module
 * extends this class in its tests and supplies the database. The shard is migrated with the library's shard
 * changelog and a table {@code contract_note (id, tenant_id, body)} ({@code db/dialect-contract/contract.xml}); the
 * dialect is the one {@link ServiceLoader} finds for the database, so its service registration is checked too. The
 * fence's write check and change capture are installed on the table, without row-level security, so that every
 * rejection comes from the fence's checks.
 *
 * <p>What it checks: every rejection reason (a stale directory version, a tenant the shard does not own, a write for a
 * FROZEN tenant, an INSERT, UPDATE or DELETE of another tenant's row, a write on a connection bound to no tenant),
 * each with SQLSTATE {@code 40001} and the reason in the fence's message, also for a transaction that only reads; a
 * freeze (taken with {@link FenceDialect#lockTenant}, as the library's) waits for the tenant's transactions in flight,
 * writers and transactions that only began, and is not starved by writers that keep starting transactions; a
 * transaction nested in a writer's while a freeze waits is rejected or completes, never blocks; REPEATABLE READ and
 * SERIALIZABLE transactions work and do not miss a freeze committed after their snapshot; nothing bound to a connection
 * survives {@link FenceDialect#end} for its next borrower, nor does a fence lock; the online mover's change capture
 * logs the rows written while a tenant is captured, and nothing otherwise.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class DialectContractTests {

	/** The shard's id, as the migration records it and every rejection names it. */
	protected static final String SHARD_ID = "contract-shard";

	/** The test changelog run after the fence changelog. */
	protected static final String CHANGELOG = "db/dialect-contract/contract.xml";

	private static final String TABLE = "contract_note";

	private final AtomicLong ids = new AtomicLong();

	/** Threads for the freezes and writers that run beside a test's own connection (one each, never queued). */
	private final ExecutorService executor = Executors.newCachedThreadPool(task -> {
		Thread thread = new Thread(task, "dialect-contract");
		thread.setDaemon(true);
		return thread;
	});

	private DataSource shard;

	private FenceDialect dialect;

	/**
	 * The shard database, empty, for this test class; called once, before the first test.
	 * @return a data source handing out connections in auto-commit mode, at least eight at once, whose lock waits last
	 * at least ten seconds
	 */
	protected abstract DataSource shardDataSource();

	/**
	 * @param observer a connection of the shard's, not taking part in the locks
	 * @return how many sessions of the shard wait for a lock right now
	 * @throws SQLException on a database error
	 */
	protected abstract int sessionsWaitingForLock(Connection observer) throws SQLException;

	/**
	 * @return whether the dialect's begin takes the tenant's fence lock, so that a freeze waits for a transaction that
	 * has only begun; {@code false} for a database whose begin is a statement that takes none (an H2 reached over TCP,
	 * where the lock is taken at the transaction's first write): the freeze then does not wait for it, and its later
	 * write is rejected with FROZEN
	 */
	protected boolean beginHoldsTheFenceLock() {
		return true;
	}

	/**
	 * Installs the fence and the {@code contract_note} table (id BIGINT primary key, tenant_id VARCHAR(64) not null,
	 * body VARCHAR(200)) on the empty shard and records its id {@link #SHARD_ID}; by default with the Liquibase
	 * changelogs (the fence changelog, then {@link #CHANGELOG}). A subclass may install them with another tool.
	 * @param shard the shard database
	 */
	protected void migrate(DataSource shard) {
		ShardTenancyMigrations.migrateShard(shard, SHARD_ID, List.of(CHANGELOG));
	}

	@BeforeAll
	final void migrateShard() throws SQLException {
		this.shard = shardDataSource();
		migrate(this.shard);
		String product;
		try (Connection c = this.shard.getConnection()) {
			product = c.getMetaData().getDatabaseProductName();
		}
		List<FenceDialect> found = new ArrayList<>();
		for (FenceDialect candidate : ServiceLoader.load(FenceDialect.class)) {
			if (candidate.supports(product)) {
				found.add(candidate);
			}
		}
		assertThat(found).as("fence dialects registered for %s", product).hasSize(1);
		this.dialect = found.get(0);
		try (Connection c = this.shard.getConnection()) {
			c.setAutoCommit(true);
			this.dialect.installWriteCheck(c, TABLE, "tenant_id", false);
			this.dialect.installChangeCapture(c, TABLE, "tenant_id");
		}
	}

	@AfterAll
	final void stopThreads() {
		this.executor.shutdownNow();
	}

	/** @return the dialect under test, found for the shard's database */
	protected final FenceDialect dialect() {
		return this.dialect;
	}

	@Test
	@DisplayName("a route older than the fence's minimum directory version is rejected at begin: STALE, 40001")
	void staleVersionIsRejected() throws SQLException {
		String tenant = tenant("stale");
		setFence(tenant, "OWNED", 5);
		SQLException rejected = catchThrowableOfType(SQLException.class, () -> inTenant(tenant, 4, c -> count(c, tenant)));
		assertRejected(rejected, tenant, "STALE", 4, 5L);
		SQLException readOnly = catchThrowableOfType(SQLException.class,
				() -> inReadOnlyTenant(tenant, 4, c -> count(c, tenant)));
		assertRejected(readOnly, tenant, "STALE", 4, 5L);
		assertThat(inTenant(tenant, 5, c -> count(c, tenant))).as("the current version is accepted").isZero();
	}

	@Test
	@DisplayName("a tenant the shard has no fence row for is rejected at begin: NOT_OWNED, 40001")
	void tenantNotOwnedIsRejected() {
		String tenant = tenant("stranger");
		SQLException rejected = catchThrowableOfType(SQLException.class, () -> inTenant(tenant, 1, c -> count(c, tenant)));
		assertRejected(rejected, tenant, "NOT_OWNED", 1, null);
		SQLException readOnly = catchThrowableOfType(SQLException.class,
				() -> inReadOnlyTenant(tenant, 1, c -> count(c, tenant)));
		assertRejected(readOnly, tenant, "NOT_OWNED", 1, null);
	}

	@Test
	@DisplayName("a tenant that moved away is rejected at begin with its state, MOVED, and the flip version")
	void movedTenantIsRejected() throws SQLException {
		String tenant = tenant("moved");
		setFence(tenant, "MOVED", 9);
		SQLException rejected = catchThrowableOfType(SQLException.class, () -> inTenant(tenant, 9, c -> 0));
		assertRejected(rejected, tenant, "MOVED", 9, 9L);
	}

	@Test
	@DisplayName("a FROZEN tenant reads, but its INSERT, UPDATE and DELETE are rejected: FROZEN, 40001")
	void frozenTenantReadsButCannotWrite() throws SQLException {
		String tenant = tenant("frozen");
		setFence(tenant, "OWNED", 1);
		long id = inTenant(tenant, 1, c -> insert(c, tenant, "before the freeze"));
		setFence(tenant, "FROZEN", 1);
		assertThat(inTenant(tenant, 1, c -> count(c, tenant))).isEqualTo(1);
		for (SqlWork write : List.<SqlWork>of(c -> insert(c, tenant, "during the freeze"),
				c -> update(c, "UPDATE contract_note SET body = 'changed' WHERE id = ?", id),
				c -> update(c, "DELETE FROM contract_note WHERE id = ?", id))) {
			SQLException rejected = catchThrowableOfType(SQLException.class, () -> inTenant(tenant, 1, write));
			assertRejected(rejected, tenant, "FROZEN", 1, 1L);
		}
		assertThat(inTenant(tenant, 1, c -> count(c, tenant))).isEqualTo(1);
	}

	@Test
	@DisplayName("a row of another tenant is rejected on INSERT, UPDATE and DELETE: FOREIGN_ROW, 40001")
	void foreignRowsAreRejected() throws SQLException {
		String tenant = tenant("own");
		String other = tenant("other");
		setFence(tenant, "OWNED", 1);
		setFence(other, "OWNED", 1);
		long mine = inTenant(tenant, 1, c -> insert(c, tenant, "mine"));
		long theirs = inTenant(other, 1, c -> insert(c, other, "theirs"));

		SQLException insert = catchThrowableOfType(SQLException.class,
				() -> inTenant(tenant, 1, c -> insert(c, other, "smuggled")));
		assertRejected(insert, "FOREIGN_ROW");
		SQLException update = catchThrowableOfType(SQLException.class, () -> inTenant(tenant, 1,
				c -> update(c, "UPDATE contract_note SET tenant_id = '" + other + "' WHERE id = ?", mine)));
		assertRejected(update, "FOREIGN_ROW");
		SQLException updateTheirs = catchThrowableOfType(SQLException.class, () -> inTenant(tenant, 1,
				c -> update(c, "UPDATE contract_note SET body = 'overwritten' WHERE id = ?", theirs)));
		assertRejected(updateTheirs, "FOREIGN_ROW");
		SQLException delete = catchThrowableOfType(SQLException.class,
				() -> inTenant(tenant, 1, c -> update(c, "DELETE FROM contract_note WHERE id = ?", theirs)));
		assertRejected(delete, "FOREIGN_ROW");

		assertThat(inTenant(other, 1, c -> count(c, other))).isEqualTo(1);
		assertThat(inTenant(tenant, 1, c -> count(c, tenant))).isEqualTo(1);
	}

	@Test
	@DisplayName("a write on a connection bound to no tenant is rejected: NO_TENANT, 40001")
	void unboundWriteIsRejected() throws SQLException {
		String tenant = tenant("unbound");
		setFence(tenant, "OWNED", 1);
		try (Connection c = this.shard.getConnection()) {
			assertRejected(catchThrowableOfType(SQLException.class, () -> unbound(c, tenant)), "NO_TENANT");
		}
	}

	@Test
	@DisplayName("an INSERT that omits the tenant column writes the bound tenant; with none bound it writes no row")
	void omittedTenantColumnIsTheBoundTenant() throws SQLException {
		String tenant = tenant("filled");
		setFence(tenant, "OWNED", 1);
		long filled = this.ids.incrementAndGet();
		long unbound = this.ids.incrementAndGet();
		try (Connection c = this.shard.getConnection()) {
			inTenant(c, tenant, 1, t -> insertWithoutTenant(t, filled));
			// The same connection after the tenant's transaction ended: nothing of it may fill the next row.
			c.setAutoCommit(true);
			SQLException refused = catchThrowableOfType(SQLException.class, () -> insertWithoutTenant(c, unbound));
			assertThat((Throwable) refused).as("an INSERT without tenant column and with no tenant bound").isNotNull();
			// NOT NULL violation (the default is NULL), or the fence's NO_TENANT for a nullable column
			assertThat(refused.getSQLState()).isIn("23502", "40001");
		}
		assertThat(tenantOf(filled)).isEqualTo(tenant);
		assertThat(tenantOf(unbound)).as("no row without a tenant").isNull();
	}

	@Test
	@DisplayName("a freeze waits for the tenant's write in flight, which commits; the next write is rejected: FROZEN")
	void freezeWaitsForInFlightWriter() throws Exception {
		String tenant = tenant("race");
		setFence(tenant, "OWNED", 1);
		CompletableFuture<Void> freeze;
		try (Connection writer = this.shard.getConnection(); Connection observer = this.shard.getConnection()) {
			writer.setAutoCommit(false);
			this.dialect.begin(writer, tenant, 1);
			try {
				insert(writer, tenant, "in flight");
				freeze = setFenceAsync(tenant, "FROZEN", 1);
				await("the freeze waits for the writer's lock").atMost(Duration.ofSeconds(30))
					.until(() -> sessionsWaitingForLock(observer) >= 1);
				assertThat(freeze).isNotDone();
				writer.commit();
			}
			finally {
				this.dialect.end(writer);
				writer.setAutoCommit(true);
			}
			freeze.get(30, TimeUnit.SECONDS);
		}
		assertThat(inTenant(tenant, 1, c -> count(c, tenant))).as("the write in flight committed").isEqualTo(1);
		SQLException after = catchThrowableOfType(SQLException.class,
				() -> inTenant(tenant, 1, c -> insert(c, tenant, "after the freeze")));
		assertRejected(after, tenant, "FROZEN", 1, 1L);
	}

	@Test
	@DisplayName("a freeze waits for a transaction of the tenant that has only begun; its later write commits")
	void freezeWaitsForATransactionThatOnlyBegan() throws Exception {
		String tenant = tenant("begun");
		setFence(tenant, "OWNED", 1);
		if (!beginHoldsTheFenceLock()) {
			// The begin took no lock, so the freeze does not wait for the transaction; its later write is rejected.
			try (Connection reader = this.shard.getConnection()) {
				reader.setAutoCommit(false);
				this.dialect.begin(reader, tenant, 1);
				try {
					assertThat(count(reader, tenant)).isZero();
					setFence(tenant, "FROZEN", 1);
					assertRejected(catchThrowableOfType(SQLException.class,
							() -> insert(reader, tenant, "begun before the freeze")), "FROZEN");
					reader.rollback();
				}
				finally {
					this.dialect.end(reader);
					reader.setAutoCommit(true);
				}
			}
			assertThat(inTenant(tenant, 1, c -> count(c, tenant))).as("nothing of the rejected transaction committed")
				.isZero();
			return;
		}
		CompletableFuture<Void> freeze;
		try (Connection reader = this.shard.getConnection(); Connection observer = this.shard.getConnection()) {
			reader.setAutoCommit(false);
			this.dialect.begin(reader, tenant, 1);
			try {
				assertThat(count(reader, tenant)).isZero();
				freeze = setFenceAsync(tenant, "FROZEN", 1);
				await("the freeze waits for the transaction begun before it").atMost(Duration.ofSeconds(30))
					.until(() -> sessionsWaitingForLock(observer) >= 1);
				assertThat(freeze).isNotDone();
				insert(reader, tenant, "begun before the freeze");
				reader.commit();
			}
			finally {
				this.dialect.end(reader);
				reader.setAutoCommit(true);
			}
			freeze.get(30, TimeUnit.SECONDS);
		}
		assertThat(inTenant(tenant, 1, c -> count(c, tenant))).as("the write begun before the freeze committed")
			.isEqualTo(1);
		assertRejected(catchThrowableOfType(SQLException.class,
				() -> inTenant(tenant, 1, c -> insert(c, tenant, "after the freeze"))), tenant, "FROZEN", 1, 1L);
	}

	@Test
	@DisplayName("a freeze completes while writers of the tenant keep starting transactions; their later writes are rejected: FROZEN")
	void freezeIsNotStarvedByNewWriters() throws Exception {
		String tenant = tenant("busy");
		setFence(tenant, "OWNED", 1);
		int writers = 4;
		AtomicBoolean stop = new AtomicBoolean();
		AtomicBoolean frozen = new AtomicBoolean();
		AtomicLong commits = new AtomicLong();
		AtomicLong rejections = new AtomicLong();
		AtomicLong committedAfterFreeze = new AtomicLong();
		AtomicLongArray rejectedAfterFreeze = new AtomicLongArray(writers);
		List<Throwable> unexpected = new CopyOnWriteArrayList<>();
		List<Future<?>> running = new ArrayList<>();
		for (int i = 0; i < writers; i++) {
			int writer = i;
			running.add(this.executor.submit(() -> {
				while (!stop.get()) {
					boolean afterFreeze = frozen.get();
					try {
						inTenant(tenant, 1, c -> insert(c, tenant, "busy writer " + writer));
						commits.incrementAndGet();
						if (afterFreeze) {
							committedAfterFreeze.incrementAndGet();
						}
					}
					catch (SQLException ex) {
						if ("40001".equals(ex.getSQLState()) && ex.getMessage().contains(": FROZEN (")) {
							rejections.incrementAndGet();
							if (afterFreeze) {
								rejectedAfterFreeze.incrementAndGet(writer);
							}
						}
						else {
							unexpected.add(ex);
							return;
						}
					}
					catch (RuntimeException ex) {
						unexpected.add(ex);
						return;
					}
				}
			}));
		}
		try {
			await("the writers commit").atMost(Duration.ofSeconds(30)).until(() -> commits.get() >= 20);
			long commitsAtRequest = commits.get();
			CompletableFuture<Void> freeze = setFenceAsync(tenant, "FROZEN", 1);
			await("the freeze completes while the writers keep starting transactions").atMost(Duration.ofSeconds(10))
				.until(freeze::isDone);
			freeze.get();
			long commitsAtFreeze = commits.get();
			long rejectionsAtFreeze = rejections.get();
			frozen.set(true);
			long rowsAtFreeze = inTenant(tenant, 1, c -> count(c, tenant));
			await("every writer's later writes are rejected").atMost(Duration.ofSeconds(30)).until(() -> {
				for (int i = 0; i < writers; i++) {
					if (rejectedAfterFreeze.get(i) < 2) {
						return !unexpected.isEmpty();
					}
				}
				return true;
			});
			stop.set(true);
			for (Future<?> writer : running) {
				writer.get(30, TimeUnit.SECONDS);
			}
			assertThat(unexpected).as("errors other than the fence's FROZEN").isEmpty();
			assertThat(commitsAtRequest).as("commits before the freeze was requested").isGreaterThanOrEqualTo(20);
			assertThat(committedAfterFreeze.get()).as("commits of transactions begun after the freeze returned")
				.isZero();
			assertThat(inTenant(tenant, 1, c -> count(c, tenant)))
				.as("rows now, as right after the freeze (commits: %d before the request, %d at the freeze; rejections "
						+ "%d at the freeze, %d in all)", commitsAtRequest, commitsAtFreeze, rejectionsAtFreeze,
						rejections.get())
				.isEqualTo(rowsAtFreeze)
				.isEqualTo(commits.get());
		}
		finally {
			stop.set(true);
			for (Future<?> writer : running) {
				try {
					writer.get(30, TimeUnit.SECONDS);
				}
				catch (ExecutionException | TimeoutException ex) {
					// reported by the assertions above, or the test fails on its own
				}
			}
		}
	}

	@Test
	@DisplayName("while a freeze waits for a writer, a nested transaction of the same tenant (REQUIRES_NEW) is rejected or completes, never blocks")
	void nestedTransactionDuringAFreezeDoesNotDeadlock() throws Exception {
		String tenant = tenant("nested");
		setFence(tenant, "OWNED", 1);
		CompletableFuture<Void> freeze;
		boolean nestedCommitted;
		try (Connection outer = this.shard.getConnection(); Connection observer = this.shard.getConnection()) {
			outer.setAutoCommit(false);
			this.dialect.begin(outer, tenant, 1);
			try {
				insert(outer, tenant, "outer");
				freeze = setFenceAsync(tenant, "FROZEN", 1);
				await("the freeze waits for the outer transaction").atMost(Duration.ofSeconds(30))
					.until(() -> sessionsWaitingForLock(observer) >= 1);
				// The outer transaction's thread waits for the nested one, as with REQUIRES_NEW.
				Future<Long> nested = this.executor
					.submit(() -> inTenant(tenant, 1, c -> insert(c, tenant, "nested")));
				try {
					nested.get(10, TimeUnit.SECONDS);
					nestedCommitted = true;
				}
				catch (ExecutionException ex) {
					assertThat(ex.getCause()).isInstanceOf(SQLException.class);
					assertRejected((SQLException) ex.getCause(), "FROZEN");
					nestedCommitted = false;
				}
				catch (TimeoutException ex) {
					throw new AssertionError("the nested transaction blocks behind the freeze, which waits for the "
							+ "outer transaction, which waits for the nested one: a deadlock", ex);
				}
				assertThat(freeze).isNotDone();
				outer.commit();
			}
			finally {
				this.dialect.end(outer);
				outer.setAutoCommit(true);
			}
			freeze.get(30, TimeUnit.SECONDS);
		}
		assertThat(inTenant(tenant, 1, c -> count(c, tenant))).isEqualTo(nestedCommitted ? 2 : 1);
		assertRejected(catchThrowableOfType(SQLException.class,
				() -> inTenant(tenant, 1, c -> insert(c, tenant, "after the freeze"))), tenant, "FROZEN", 1, 1L);
	}

	@ParameterizedTest(name = "isolation level {0}")
	@ValueSource(ints = { Connection.TRANSACTION_REPEATABLE_READ, Connection.TRANSACTION_SERIALIZABLE })
	@DisplayName("at REPEATABLE READ and SERIALIZABLE a transaction begins, reads, writes its tenant and commits")
	void isolationLevelsWork(int level) throws SQLException {
		String tenant = tenant("isolated");
		setFence(tenant, "OWNED", 1);
		atIsolation(level, c -> {
			this.dialect.begin(c, tenant, 1);
			assertThat(count(c, tenant)).isZero();
			insert(c, tenant, "isolated");
			assertThat(count(c, tenant)).isEqualTo(1);
			c.commit();
			return 0;
		});
		assertThat(inTenant(tenant, 1, c -> count(c, tenant))).isEqualTo(1);
	}

	@ParameterizedTest(name = "isolation level {0}")
	@ValueSource(ints = { Connection.TRANSACTION_REPEATABLE_READ, Connection.TRANSACTION_SERIALIZABLE })
	@DisplayName("a freeze committed after a transaction's snapshot but before its begin does not let its write through")
	void freezeAfterTheSnapshotIsNotMissed(int level) throws SQLException {
		String tenant = tenant("snapshot");
		setFence(tenant, "OWNED", 1);
		atIsolation(level, c -> {
			assertThat(count(c, tenant)).as("the snapshot, taken before the freeze").isZero();
			assertThat(setFenceAsync(tenant, "FROZEN", 1)).succeedsWithin(Duration.ofSeconds(30));
			SQLException rejected = catchThrowableOfType(SQLException.class, () -> {
				this.dialect.begin(c, tenant, 1);
				insert(c, tenant, "after the freeze, in an older snapshot");
				c.commit();
			});
			assertThat((Throwable) rejected).as("the begin or the write is rejected").isNotNull();
			assertThat(rejected.getSQLState()).isEqualTo("40001");
			return 0;
		});
		assertThat(inTenant(tenant, 1, c -> count(c, tenant))).isZero();
	}

	/**
	 * Runs work on a connection with auto-commit off at an isolation level; the work begins (or not) and commits (or
	 * not); then rolls back, ends and restores the connection.
	 */
	private void atIsolation(int level, SqlWork work) throws SQLException {
		try (Connection c = this.shard.getConnection()) {
			int previous = c.getTransactionIsolation();
			c.setAutoCommit(false);
			c.setTransactionIsolation(level);
			try {
				work.run(c);
			}
			finally {
				c.rollback();
				this.dialect.end(c);
				c.setAutoCommit(true);
				c.setTransactionIsolation(previous);
			}
		}
	}

	@Test
	@DisplayName("statementCount counts as the driver splits the text, or answers -1: a ';' in a string or at the end "
			+ "is one statement, two statements are two; a reference read's transaction is read-only, auto-commit off")
	void statementsAreCountedByTheDriver() throws SQLException {
		try (Connection c = this.shard.getConnection()) {
			for (String one : List.of("SELECT 1", "SELECT 1;", "SELECT ';' AS x", "SELECT 1 -- ; SELECT 2",
					"SELECT 1 /* ; */")) {
				assertThat(this.dialect.statementCount(c, one)).as(one).isIn(1, -1);
			}
			for (String two : List.of("SELECT 1; SELECT 2", "SELECT ';'; DELETE FROM " + TABLE)) {
				int count = this.dialect.statementCount(c, two);
				assertThat(count).as(two).isIn(2, -1);
			}
			this.dialect.beginReferenceRead(c, null);
			assertThat(c.getAutoCommit()).isFalse();
			assertThat(c.isReadOnly()).isTrue();
			try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + TABLE)) {
				assertThat(rs.next()).isTrue();
			}
			c.rollback();
			c.setAutoCommit(true);
			this.dialect.releaseSession(c);
			c.setReadOnly(false);
		}
	}

	@Test
	@DisplayName("after end, the next borrower of the connection sees no tenant and holds no fence lock: committed, rolled back, rejected at begin or a mover's")
	void nothingLeaksToTheNextBorrower() throws Exception {
		String tenant = tenant("pooled");
		setFence(tenant, "OWNED", 1);
		try (Connection c = this.shard.getConnection()) {
			c.setAutoCommit(false);
			this.dialect.begin(c, tenant, 1);
			insert(c, tenant, "committed");
			c.commit();
			this.dialect.end(c);
			c.setAutoCommit(true);
			assertNoTenant(c, tenant);

			c.setAutoCommit(false);
			this.dialect.begin(c, tenant, 1);
			insert(c, tenant, "rolled back");
			c.rollback();
			this.dialect.end(c);
			c.setAutoCommit(true);
			assertNoTenant(c, tenant);

			c.setAutoCommit(false);
			assertRejected(catchThrowableOfType(SQLException.class, () -> this.dialect.begin(c, tenant, 0)), tenant,
					"STALE", 0, 1L);
			c.rollback();
			this.dialect.end(c);
			c.setAutoCommit(true);
			assertNoTenant(c, tenant);

			c.setAutoCommit(false);
			this.dialect.beginMover(c, tenant);
			insert(c, tenant, "the mover's");
			c.commit();
			this.dialect.end(c);
			c.setAutoCommit(true);
			assertNoTenant(c, tenant);

			// Nor does any lock of the fence outlive those transactions: the tenant's fence lock is granted.
			setFenceAsync(tenant, "OWNED", 1).get(30, TimeUnit.SECONDS);
		}
		assertThat(inTenant(tenant, 1, c -> count(c, tenant))).isEqualTo(2);
	}

	@Test
	@DisplayName("while a tenant is captured, its writes are logged in shard_change, a mover's are not; without capture nothing")
	void captureLogsWritesOfACapturedTenantOnly() throws SQLException {
		String captured = tenant("captured");
		String plain = tenant("plain");
		setFence(captured, "OWNED", 1);
		setFence(plain, "OWNED", 1);
		long before = inTenant(captured, 1, c -> insert(c, captured, "before the capture"));
		underFenceLock(captured, "INSERT INTO shard_capture (tenant_id, move_id, since) VALUES (?, ?, CURRENT_TIMESTAMP)",
				captured, "move-" + captured);

		long inserted = inTenant(captured, 1, c -> insert(c, captured, "during the move"));
		inTenant(captured, 1, c -> update(c, "UPDATE contract_note SET body = 'changed' WHERE id = ?", before));
		inTenant(plain, 1, c -> insert(c, plain, "not moving"));
		try (Connection mover = this.shard.getConnection()) {
			mover.setAutoCommit(false);
			this.dialect.beginMover(mover, captured);
			insert(mover, captured, "copied by the mover");
			mover.commit();
			this.dialect.end(mover);
			mover.setAutoCommit(true);
		}

		assertThat(changes(captured)).containsOnly(TABLE + ":" + inserted, TABLE + ":" + before);
		assertThat(changes(plain)).isEmpty();

		underFenceLock(captured, "DELETE FROM shard_capture WHERE tenant_id = ?", captured);
		underFenceLock(captured, "DELETE FROM shard_change WHERE tenant_id = ?", captured);
		inTenant(captured, 1, c -> insert(c, captured, "after the capture"));
		assertThat(changes(captured)).as("capture off writes nothing").isEmpty();
	}

	/** Work on a connection bound to a tenant. */
	@FunctionalInterface
	protected interface SqlWork {

		/**
		 * @param c the connection, in a transaction
		 * @return a result
		 * @throws SQLException on a database error
		 */
		long run(Connection c) throws SQLException;

	}

	/**
	 * Runs work as the connection provider does: auto-commit off, {@link FenceDialect#begin}, the work, commit (or
	 * rollback), {@link FenceDialect#end}.
	 */
	private long inTenant(String tenant, long version, SqlWork work) throws SQLException {
		try (Connection c = this.shard.getConnection()) {
			return inTenant(c, tenant, version, work);
		}
	}

	/** As {@link #inTenant}, in a read-only transaction ({@link FenceDialect#beginReadOnly}). */
	private long inReadOnlyTenant(String tenant, long version, SqlWork work) throws SQLException {
		try (Connection c = this.shard.getConnection()) {
			this.dialect.beginReadOnly(c);
			try {
				return inTenant(c, tenant, version, work);
			}
			finally {
				c.setReadOnly(false);
			}
		}
	}

	private long inTenant(Connection c, String tenant, long version, SqlWork work) throws SQLException {
		try {
			return inTransaction(c, t -> {
				this.dialect.begin(t, tenant, version);
				return work.run(t);
			});
		}
		finally {
			this.dialect.end(c);
		}
	}

	/** Runs work in a transaction: auto-commit off, the work, commit (or rollback), auto-commit on. */
	private static long inTransaction(Connection c, SqlWork work) throws SQLException {
		c.setAutoCommit(false);
		try {
			long result = work.run(c);
			c.commit();
			return result;
		}
		catch (SQLException | RuntimeException ex) {
			c.rollback();
			throw ex;
		}
		finally {
			c.setAutoCommit(true);
		}
	}

	private void assertNoTenant(Connection c, String tenant) {
		assertRejected(catchThrowableOfType(SQLException.class, () -> unbound(c, tenant)), "NO_TENANT");
	}

	private void unbound(Connection c, String tenant) throws SQLException {
		boolean autoCommit = c.getAutoCommit();
		c.setAutoCommit(false);
		try {
			insert(c, tenant, "unbound");
			c.commit();
		}
		finally {
			c.rollback();
			c.setAutoCommit(autoCommit);
		}
	}

	/**
	 * Asserts a rejection at begin or of a tenant's own row: SQLSTATE 40001 and the fence's message, with the
	 * required version unless it is {@code null}.
	 */
	private static void assertRejected(SQLException rejected, String tenant, String reason, long seen, Long required) {
		assertThat((Throwable) rejected).as("rejection " + reason).isNotNull();
		assertThat(rejected.getSQLState()).isEqualTo("40001");
		assertThat(rejected.getMessage()).contains("shard fence: tenant '" + tenant + "' rejected on shard '" + SHARD_ID
				+ "': " + reason + " (directory version seen " + seen
				+ ((required != null) ? ", required " + required + ")" : ""));
	}

	/** Asserts a rejection with SQLSTATE 40001 and the reason in the fence's message. */
	private static void assertRejected(SQLException rejected, String reason) {
		assertThat((Throwable) rejected).as("rejection " + reason).isNotNull();
		assertThat(rejected.getSQLState()).isEqualTo("40001");
		assertThat(rejected.getMessage()).contains("shard fence: tenant '").contains(": " + reason + " (");
	}

	private long insert(Connection c, String tenant, String body) throws SQLException {
		long id = this.ids.incrementAndGet();
		try (PreparedStatement ps = c
			.prepareStatement("INSERT INTO contract_note (id, tenant_id, body) VALUES (?, ?, ?)")) {
			ps.setLong(1, id);
			ps.setString(2, tenant);
			ps.setString(3, body);
			ps.executeUpdate();
		}
		return id;
	}

	private static long insertWithoutTenant(Connection c, long id) throws SQLException {
		try (PreparedStatement ps = c.prepareStatement("INSERT INTO contract_note (id, body) VALUES (?, 'filled')")) {
			ps.setLong(1, id);
			return ps.executeUpdate();
		}
	}

	/** @return the tenant of the row with that id, or {@code null} if there is no such row */
	private String tenantOf(long id) throws SQLException {
		try (Connection c = this.shard.getConnection();
				PreparedStatement ps = c.prepareStatement("SELECT tenant_id FROM contract_note WHERE id = ?")) {
			ps.setLong(1, id);
			try (ResultSet rs = ps.executeQuery()) {
				return rs.next() ? rs.getString(1) : null;
			}
		}
	}

	private static long update(Connection c, String sql, long id) throws SQLException {
		try (PreparedStatement ps = c.prepareStatement(sql)) {
			ps.setLong(1, id);
			return ps.executeUpdate();
		}
	}

	private static long count(Connection c, String tenant) throws SQLException {
		try (PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM contract_note WHERE tenant_id = ?")) {
			ps.setString(1, tenant);
			try (ResultSet rs = ps.executeQuery()) {
				rs.next();
				return rs.getLong(1);
			}
		}
	}

	/** @return the tenant's change-log entries as {@code table:key}, the table in lower case */
	private List<String> changes(String tenant) throws SQLException {
		List<String> changes = new ArrayList<>();
		try (Connection c = this.shard.getConnection();
				PreparedStatement ps = c
					.prepareStatement("SELECT table_name, row_key FROM shard_change WHERE tenant_id = ?")) {
			ps.setString(1, tenant);
			try (ResultSet rs = ps.executeQuery()) {
				while (rs.next()) {
					String table = rs.getString(1);
					table = table.substring(table.lastIndexOf('.') + 1).toLowerCase(java.util.Locale.ROOT);
					changes.add(table + ":" + rs.getString(2));
				}
			}
		}
		return changes;
	}

	/**
	 * Writes a tenant's fence row as the library's freeze and flip do: in a transaction of its own that first takes
	 * {@link FenceDialect#lockTenant}, an UPDATE, else an INSERT.
	 */
	private void setFence(String tenant, String state, long minVersion) throws SQLException {
		underFenceLock(tenant, c -> {
			try (PreparedStatement ps = c.prepareStatement(
					"UPDATE shard_fence SET state = ?, min_version = ?, updated_at = CURRENT_TIMESTAMP WHERE tenant_id = ?")) {
				ps.setString(1, state);
				ps.setLong(2, minVersion);
				ps.setString(3, tenant);
				if (ps.executeUpdate() == 1) {
					return 1;
				}
			}
			try (PreparedStatement ps = c.prepareStatement("INSERT INTO shard_fence (tenant_id, state, min_version, "
					+ "updated_at) VALUES (?, ?, ?, CURRENT_TIMESTAMP)")) {
				ps.setString(1, tenant);
				ps.setString(2, state);
				ps.setLong(3, minVersion);
				return ps.executeUpdate();
			}
		});
	}

	/** {@link #setFence} on a thread of its own. */
	private CompletableFuture<Void> setFenceAsync(String tenant, String state, long minVersion) {
		return CompletableFuture.runAsync(() -> {
			try {
				setFence(tenant, state, minVersion);
			}
			catch (SQLException ex) {
				throw new IllegalStateException(ex);
			}
		}, this.executor);
	}

	/** Runs one statement under the tenant's fence lock, as the library changes a tenant's change capture. */
	private void underFenceLock(String tenant, String sql, String... parameters) throws SQLException {
		underFenceLock(tenant, c -> {
			try (PreparedStatement ps = c.prepareStatement(sql)) {
				for (int i = 0; i < parameters.length; i++) {
					ps.setString(i + 1, parameters[i]);
				}
				ps.execute();
				return 0;
			}
		});
	}

	/** Runs work in a transaction of its own that first takes {@link FenceDialect#lockTenant}, and commits it. */
	private long underFenceLock(String tenant, SqlWork work) throws SQLException {
		try (Connection c = this.shard.getConnection()) {
			return inTransaction(c, t -> {
				this.dialect.lockTenant(t, tenant);
				return work.run(t);
			});
		}
	}

	private static String tenant(String prefix) {
		return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
	}

}
