package io.github.shardtenancy.internal.fence;

import io.github.shardtenancy.retry.FenceRejection;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.RouterSettings;
import io.github.shardtenancy.TenantTable;
import io.github.shardtenancy.h2.H2Fence;
import io.github.shardtenancy.internal.hibernate.TenantRoutingDataSource;
import io.github.shardtenancy.internal.lifecycle.DirectoryAdmin;
import io.github.shardtenancy.internal.move.ChangeCapture;
import io.github.shardtenancy.internal.move.TablePlan;
import io.github.shardtenancy.RouterSettings;
import io.github.shardtenancy.internal.hibernate.TenantRoutingDataSource;
import io.github.shardtenancy.internal.routing.Router;
import io.github.shardtenancy.retry.FenceRejection;
import io.github.shardtenancy.testing.ShardTenancyFixture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

@DisplayName("Shard fence on H2")
class H2FenceTest {

	private static ShardTenancyFixture fixture;

	private static DirectoryAdmin admin;

	private static TenantRoutingDataSource routed;

	private static final AtomicInteger tenants = new AtomicInteger();

	private final ExecutorService threads = Executors.newFixedThreadPool(2);

	@BeforeAll
	static void setUp() {
		fixture = ShardTenancyFixture.create("fence", 2);
		admin = fixture.admin(fixture.router());
		routed = new TenantRoutingDataSource(fixture.provider());
	}

	@AfterAll
	static void tearDown() {
		fixture.close();
	}

	@AfterEach
	void stopThreads() {
		this.threads.shutdownNow();
		assertThat(fixture.activeConnections()).as("connections left borrowed").isZero();
	}

	private static String newTenant() {
		return "fence-t" + tenants.incrementAndGet();
	}

	private static DataSource shard(String id) {
		return fixture.topology().shard(id).dataSource();
	}

	private static SQLException openRoutedConnection(String tenant) {
		try (TenantContext.Scope scope = TenantContext.bind(tenant); Connection c = routed.getConnection()) {
			throw new AssertionError("the fence accepted the route of " + tenant);
		}
		catch (SQLException ex) {
			return ex;
		}
	}

	@Test
	@DisplayName("a route with a stale version is rejected at begin with 40001 naming tenant, shard, seen and required version")
	void staleRouteIsRejectedAtBegin() {
		String t = newTenant();
		DirectoryEntry entry = admin.create(t, "shard-1");
		ShardFence.set(shard("shard-1"), "shard-1", t, FenceState.OWNED, entry.version() + 10);
		long borrowsBefore = fixture.borrows("shard-1");

		SQLException rejected = openRoutedConnection(t);

		assertThat(rejected.getSQLState()).isEqualTo("40001");
		assertThat(rejected.getMessage()).contains("shard fence: tenant '" + t + "' rejected on shard 'shard-1': STALE "
				+ "(directory version seen " + entry.version() + ", required " + (entry.version() + 10) + ")");
		FenceRejection rejection = FenceRejection.find(new RuntimeException("wrapped", rejected)).orElseThrow();
		assertThat(rejection.tenantId()).isEqualTo(t);
		assertThat(rejection.shardId()).isEqualTo("shard-1");
		assertThat(rejection.reason()).isEqualTo("STALE");
		assertThat(rejection.seenVersion()).isEqualTo(entry.version());
		assertThat(rejection.requiredVersion()).isEqualTo(entry.version() + 10);
		assertThat(rejection.isFrozen()).isFalse();
		assertThat(fixture.borrows("shard-1")).isEqualTo(borrowsBefore + 1);
	}

	@Test
	@DisplayName("a connection a mover left marked is fenced like any other once it is routed again")
	void moverMarkDoesNotSurviveTheNextRoutedBegin() throws SQLException {
		String t = newTenant();
		DirectoryEntry entry = admin.create(t, "shard-1");
		try (Connection c = shard("shard-1").getConnection()) {
			fixture.topology().shard("shard-1").dialect().beginMover(c, t); // and never ended: a leaked mover mark
			ShardFence.set(shard("shard-1"), "shard-1", t, FenceState.MOVED, entry.version() + 1);
			try (PreparedStatement begin = c.prepareStatement("CALL SHARD_FENCE_BEGIN(?, ?)")) {
				begin.setString(1, t);
				begin.setLong(2, entry.version() + 1);
				assertThatThrownBy(begin::execute).isInstanceOf(SQLException.class).hasMessageContaining("MOVED");
			}
			ShardFence.set(shard("shard-1"), "shard-1", t, FenceState.FROZEN, entry.version() + 1);
			try (PreparedStatement begin = c.prepareStatement("CALL SHARD_FENCE_BEGIN(?, ?)")) {
				begin.setString(1, t);
				begin.setLong(2, entry.version() + 1);
				begin.execute(); // reads of a FROZEN tenant are accepted...
			}
			assertThatThrownBy(() -> ShardTenancyFixture.insertNote(c, t, "through a leaked mover mark"))
				.satisfies(ex -> assertThat(FenceRejection.find(ex).orElseThrow().reason()).isEqualTo("FROZEN"));
			fixture.topology().shard("shard-1").dialect().end(c);
		}
		assertThat(fixture.rows("shard-1", "note", t)).isZero();
	}

	@Test
	@DisplayName("a row whose tenant column is NULL is rejected as another tenant's row, even for the tenant named 'null'")
	void rowWithNullTenantIsRejected() throws SQLException {
		String t = "null";
		if (fixture.directory().find(t).isEmpty()) {
			admin.create(t, "shard-1");
		}
		try (Connection c = shard("shard-1").getConnection()) { // a tenant table whose tenant column allows NULL
			c.createStatement().execute("CREATE TABLE IF NOT EXISTS loose_note (id UUID PRIMARY KEY, tenant_id VARCHAR(64))");
			fixture.topology().shard("shard-1").dialect().installWriteCheck(c, "loose_note", "tenant_id");
		}
		try (TenantContext.Scope scope = TenantContext.bind(t); Connection c = routed.getConnection();
				PreparedStatement ps = c.prepareStatement("INSERT INTO loose_note (id, tenant_id) VALUES (?, NULL)")) {
			ps.setObject(1, UUID.randomUUID());
			assertThatThrownBy(ps::executeUpdate).satisfies(
					ex -> assertThat(FenceRejection.find(ex).orElseThrow().reason()).isEqualTo("FOREIGN_ROW"));
		}
	}

	@Test
	@DisplayName("a router that missed a move is rejected by the old owner with MOVED and the flip version")
	void routeToOldOwnerAfterMoveIsRejected() {
		String t = newTenant();
		DirectoryEntry entry = admin.create(t, "shard-1");
		Router otherInstance = fixture.newRouter(RouterSettings.defaults());
		long flipVersion = fixture.admin(otherInstance).move(t, "shard-2").flipVersion();
		assertThat(fixture.router().cached(t)).contains(entry);

		SQLException rejected = openRoutedConnection(t);

		FenceRejection rejection = FenceRejection.find(rejected).orElseThrow();
		assertThat(rejection.reason()).isEqualTo("MOVED");
		assertThat(rejection.shardId()).isEqualTo("shard-1");
		assertThat(rejection.seenVersion()).isEqualTo(entry.version());
		assertThat(rejection.requiredVersion()).isEqualTo(flipVersion);
	}

	@Test
	@DisplayName("a tenant the shard does not own is rejected with NOT_OWNED")
	void tenantNotOwnedIsRejected() {
		String t = newTenant();
		fixture.directory().create(t, "shard-2", "test"); // directory entry, but shard-2's fence never heard of it

		FenceRejection rejection = FenceRejection.find(openRoutedConnection(t)).orElseThrow();

		assertThat(rejection.reason()).isEqualTo("NOT_OWNED");
		assertThat(rejection.shardId()).isEqualTo("shard-2");
		assertThat(rejection.requiredVersion()).isEqualTo(-1);
	}

	@Test
	@DisplayName("a tenant INCOMING on the target of a move is refused to routed work")
	void incomingTenantIsRejected() {
		String t = newTenant();
		DirectoryEntry entry = admin.create(t, "shard-1");
		ShardFence.set(shard("shard-1"), "shard-1", t, FenceState.INCOMING, entry.version());

		assertThat(FenceRejection.find(openRoutedConnection(t)).orElseThrow().reason()).isEqualTo("INCOMING");
	}

	@Test
	@DisplayName("a FROZEN tenant can read, but every write is rejected with reason FROZEN")
	void frozenTenantReadsButCannotWrite() throws Exception {
		String t = newTenant();
		DirectoryEntry entry = admin.create(t, "shard-1");
		UUID existing;
		try (TenantContext.Scope scope = TenantContext.bind(t); Connection c = routed.getConnection()) {
			existing = ShardTenancyFixture.insertNote(c, t, "before the freeze");
		}
		ShardFence.set(shard("shard-1"), "shard-1", t, FenceState.FROZEN, entry.version());

		try (TenantContext.Scope scope = TenantContext.bind(t); Connection c = routed.getConnection()) {
			try (PreparedStatement ps = c.prepareStatement("SELECT body FROM note WHERE tenant_id = ?")) {
				ps.setString(1, t);
				try (ResultSet rs = ps.executeQuery()) {
					assertThat(rs.next()).isTrue();
					assertThat(rs.getString(1)).isEqualTo("before the freeze");
				}
			}
			assertFrozen(() -> ShardTenancyFixture.insertNote(c, t, "during the freeze"), t, entry.version());
			assertFrozen(() -> update(c, "UPDATE note SET body = 'changed' WHERE id = ?", existing), t,
					entry.version());
			assertFrozen(() -> update(c, "DELETE FROM note WHERE id = ?", existing), t, entry.version());
		}
		assertThat(fixture.rows("shard-1", "note", t)).isEqualTo(1);
	}

	private interface SqlWork {

		Object run() throws SQLException;

	}

	private static int update(Connection c, String sql, UUID id) throws SQLException {
		try (PreparedStatement ps = c.prepareStatement(sql)) {
			ps.setObject(1, id);
			return ps.executeUpdate();
		}
	}

	private static void assertFrozen(SqlWork write, String tenant, long version) {
		assertThatThrownBy(write::run).isInstanceOf(SQLException.class).satisfies(ex -> {
			FenceRejection rejection = FenceRejection.find(ex).orElseThrow();
			assertThat(rejection.reason()).isEqualTo("FROZEN");
			assertThat(rejection.isFrozen()).isTrue();
			assertThat(rejection.tenantId()).isEqualTo(tenant);
			assertThat(rejection.seenVersion()).isEqualTo(version);
		});
	}

	@Test
	@DisplayName("a row of another tenant written on a routed connection is rejected with FOREIGN_ROW")
	void foreignRowIsRejected() throws Exception {
		String t = newTenant();
		String neighbour = newTenant();
		admin.create(t, "shard-1");
		admin.create(neighbour, "shard-1");
		try (TenantContext.Scope scope = TenantContext.bind(t); Connection c = routed.getConnection()) {
			UUID own = ShardTenancyFixture.insertNote(c, t, "mine");

			assertThatThrownBy(() -> ShardTenancyFixture.insertNote(c, neighbour, "not mine"))
				.satisfies(ex -> assertThat(FenceRejection.find(ex).orElseThrow().reason()).isEqualTo("FOREIGN_ROW"));
			assertThatThrownBy(() -> {
				try (PreparedStatement ps = c.prepareStatement("UPDATE note SET tenant_id = ? WHERE id = ?")) {
					ps.setString(1, neighbour);
					ps.setObject(2, own);
					ps.executeUpdate();
				}
			}).satisfies(ex -> assertThat(FenceRejection.find(ex).orElseThrow().reason()).isEqualTo("FOREIGN_ROW"));
		}
		assertThat(fixture.rows("shard-1", "note", t)).isEqualTo(1);
		assertThat(fixture.rows("shard-1", "note", neighbour)).isZero();
	}

	@Test
	@DisplayName("a write on a connection that was never routed is rejected with NO_TENANT")
	void unroutedWriteIsRejected() throws Exception {
		String t = newTenant();
		admin.create(t, "shard-1");
		try (Connection raw = shard("shard-1").getConnection()) {
			assertThatThrownBy(() -> ShardTenancyFixture.insertNote(raw, t, "sneaky"))
				.satisfies(ex -> assertThat(FenceRejection.find(ex).orElseThrow().reason()).isEqualTo("NO_TENANT"));
		}
		assertThat(fixture.rows("shard-1", "note", t)).isZero();
	}

	@Test
	@DisplayName("an UPDATE in a transaction begun before a move, run after its flip and clean, matches no row and is "
			+ "still rejected (MOVED); retried on the new owner it lands exactly once")
	void updateAfterFlipAndCleanIsRejectedNotLost() throws Exception {
		assertStatementAfterFlipAndCleanIsRejected("UPDATE note SET body = 'updated' WHERE id = ?", 1);
	}

	@Test
	@DisplayName("a DELETE in a transaction begun before a move, run after its flip and clean, matches no row and is "
			+ "still rejected (MOVED); retried on the new owner it lands exactly once")
	void deleteAfterFlipAndCleanIsRejectedNotLost() throws Exception {
		assertStatementAfterFlipAndCleanIsRejected("DELETE FROM note WHERE id = ?", 0);
	}

	/**
	 * Begins a transaction of a new tenant on shard-1 and reads its note; another thread moves the tenant to shard-2
	 * (the basic mover: freeze, copy, flip, clean at once); then the statement runs in the first transaction. The
	 * transaction is bound by SQL alone ({@code @SHARD_TENANT}, {@code @SHARD_VERSION}), not by the dialect's begin,
	 * which would hold the tenant's fence lock and make the move wait for the transaction (see
	 * {@link #writeRacingFreezeCommitsFirstOrIsRejected}): such a session takes the lock only at its first write,
	 * here the statement matching no row.
	 */
	private void assertStatementAfterFlipAndCleanIsRejected(String statement, int notesAfter) throws Exception {
		String t = newTenant();
		admin.create(t, "shard-1");
		UUID id;
		try (TenantContext.Scope scope = TenantContext.bind(t); Connection c = routed.getConnection()) {
			id = ShardTenancyFixture.insertNote(c, t, "before the move");
		}

		DirectoryEntry entry = fixture.directory().find(t).orElseThrow();
		try (Connection a = shard("shard-1").getConnection()) {
			a.setAutoCommit(false);
			try (PreparedStatement bind = a.prepareStatement("SELECT SET(@SHARD_TENANT, ?), SET(@SHARD_VERSION, ?)")) {
				bind.setString(1, t);
				bind.setLong(2, entry.version());
				bind.executeQuery().close();
			}
			try (PreparedStatement read = a.prepareStatement("SELECT body FROM note WHERE id = ?")) {
				read.setObject(1, id);
				try (ResultSet rs = read.executeQuery()) {
					assertThat(rs.next()).as("the note, read before the move").isTrue();
				}
			}
			CompletableFuture.runAsync(() -> admin.move(t, "shard-2"), this.threads).get(30, TimeUnit.SECONDS);
			assertThat(fixture.rows("shard-1", "note", t)).as("source cleaned").isZero();

			assertThatThrownBy(() -> update(a, statement, id)).isInstanceOf(SQLException.class).satisfies(ex -> {
				assertThat(((SQLException) ex).getSQLState()).isEqualTo("40001");
				FenceRejection rejection = FenceRejection.find(ex).orElseThrow();
				assertThat(rejection.reason()).isEqualTo("MOVED");
				assertThat(rejection.tenantId()).isEqualTo(t);
				assertThat(rejection.shardId()).isEqualTo("shard-1");
			});
			a.rollback();
			a.createStatement().execute("SET @SHARD_TENANT = NULL");
			a.createStatement().execute("SET @SHARD_VERSION = NULL");
		}

		// The retry: the whole transaction again, routed by the directory, which names shard-2 now.
		int attempts = 0;
		int changed = -1;
		while (changed < 0) {
			attempts++;
			try (TenantContext.Scope scope = TenantContext.bind(t); Connection c = routed.getConnection()) {
				c.setAutoCommit(false);
				changed = update(c, statement, id);
				c.commit();
			}
			catch (SQLException ex) {
				FenceRejection.find(ex).orElseThrow(() -> new AssertionError("not a fence rejection", ex));
				fixture.router().invalidate(t);
				assertThat(attempts).as("attempts").isLessThan(5);
			}
		}
		assertThat(changed).isEqualTo(1);
		assertThat(fixture.rows("shard-1", "note", t)).isZero();
		assertThat(fixture.rows("shard-2", "note", t)).isEqualTo(notesAfter);
		if (notesAfter == 1) {
			assertThat(ShardTenancyFixture.queryLong(shard("shard-2"),
					"SELECT COUNT(*) FROM note WHERE body = 'updated' AND id = ?", id.toString())).isEqualTo(1);
		}
	}

	@Test
	@DisplayName("a write racing a freeze: the freeze waits for the open write to commit, and later writes are rejected")
	void writeRacingFreezeCommitsFirstOrIsRejected() throws Exception {
		String t = newTenant();
		DirectoryEntry entry = admin.create(t, "shard-1");
		UUID written;
		CompletableFuture<Void> freeze;
		try (TenantContext.Scope scope = TenantContext.bind(t); Connection a = routed.getConnection()) {
			a.setAutoCommit(false);
			written = ShardTenancyFixture.insertNote(a, t, "in flight");

			freeze = freezeAsync(t, entry);
			await("the freeze waits for the writer's hold on the tenant's fence lock").atMost(Duration.ofSeconds(30))
				.until(() -> fenceLockWaiters() == 1);
			assertThat(freeze).isNotDone();
			assertThat(ShardFence.get(shard("shard-1"), "shard-1", t)).get()
				.extracting(ShardFence.Row::state)
				.isEqualTo(FenceState.OWNED);

			a.commit();
			// The routed connection holds the lock from its begin (when it was borrowed) until it is returned.
			assertThat(freeze).isNotDone();
		}
		freeze.get(30, TimeUnit.SECONDS);
		try (TenantContext.Scope scope = TenantContext.bind(t); Connection a = routed.getConnection()) {
			a.setAutoCommit(false);

			assertThat(ShardFence.get(shard("shard-1"), "shard-1", t)).get()
				.extracting(ShardFence.Row::state)
				.isEqualTo(FenceState.FROZEN);
			assertThat(ShardTenancyFixture.queryLong(shard("shard-1"), "SELECT COUNT(*) FROM note WHERE id = ?",
					written.toString())).isEqualTo(1);
			assertFrozen(() -> ShardTenancyFixture.insertNote(a, t, "after the freeze"), t, entry.version());
			a.rollback();
		}
		assertThat(fixture.rows("shard-1", "note", t)).isEqualTo(1);
	}

	/** @return how many sessions of shard-1 wait to take a tenant's fence lock exclusive (a freeze, a capture) */
	private static int fenceLockWaiters() throws SQLException {
		try (Connection c = shard("shard-1").getConnection()) {
			return H2Fence.sessionsWaitingForFenceLock(c);
		}
	}

	/** How often the write check's SQL path (which locks the fence row) ran on shard-1 since statistics began. */
	private static long fenceLockStatements() {
		return ShardTenancyFixture.queryLong(shard("shard-1"),
				"SELECT COALESCE(SUM(EXECUTION_COUNT), 0) FROM INFORMATION_SCHEMA.QUERY_STATISTICS "
						+ "WHERE SQL_STATEMENT LIKE '%FROM shard_fence WHERE tenant_id = @SHARD_TENANT%FOR UPDATE%' "
						+ "AND SQL_STATEMENT NOT LIKE '%QUERY_STATISTICS%'"); // not this query itself
	}

	private static void queryStatistics(boolean on) throws SQLException {
		try (Connection c = shard("shard-1").getConnection()) {
			c.createStatement().execute("SET QUERY_STATISTICS " + on);
		}
	}

	@Test
	@DisplayName("a transaction writing several rows of its tenant, in two tables, runs no statement of the write check")
	void writeCheckRunsNoStatement() throws Exception {
		String t = newTenant();
		admin.create(t, "shard-1");
		queryStatistics(true);
		try (TenantContext.Scope scope = TenantContext.bind(t); Connection c = routed.getConnection()) {
			c.setAutoCommit(false);
			UUID first = ShardTenancyFixture.insertNote(c, t, "one");
			ShardTenancyFixture.insertNote(c, t, "two");
			assertThat(update(c, "UPDATE note SET body = 'one, changed' WHERE id = ?", first)).isEqualTo(1);
			try (PreparedStatement ps = c
				.prepareStatement("INSERT INTO note_item (id, note_id, tenant_id, label) VALUES (?, ?, ?, 'item')")) {
				ps.setObject(1, UUID.randomUUID());
				ps.setObject(2, first);
				ps.setString(3, t);
				ps.executeUpdate();
			}
			c.commit();
			assertThat(fenceLockStatements()).as("fence row lock statements for 5 writes in one transaction")
				.isZero();

			ShardTenancyFixture.insertNote(c, t, "three");
			c.commit();
			assertThat(fenceLockStatements()).isZero();
		}
		finally {
			queryStatistics(false);
		}
		assertThat(fixture.rows("shard-1", "note", t)).isEqualTo(3);
	}

	@Test
	@DisplayName("a rollback to a savepoint past the transaction's first write keeps its hold on the fence lock: a "
			+ "freeze waits until the transaction's connection is returned; a later write is rejected with FROZEN")
	void rollbackToSavepointKeepsTheHold() throws Exception {
		String t = newTenant();
		DirectoryEntry entry = admin.create(t, "shard-1");
		CompletableFuture<Void> freeze;
		try (TenantContext.Scope scope = TenantContext.bind(t); Connection a = routed.getConnection()) {
			a.setAutoCommit(false);
			java.sql.Savepoint beforeWrites = a.setSavepoint();
			ShardTenancyFixture.insertNote(a, t, "rolled back");
			a.rollback(beforeWrites);

			freeze = freezeAsync(t, entry);
			await("the freeze waits for the transaction").atMost(Duration.ofSeconds(30))
				.until(() -> fenceLockWaiters() == 1);
			ShardTenancyFixture.insertNote(a, t, "written while the freeze waits");
			a.rollback();
			assertThat(freeze).isNotDone();
		}
		freeze.get(30, TimeUnit.SECONDS);
		assertFrozen(() -> {
			try (TenantContext.Scope scope = TenantContext.bind(t); Connection b = routed.getConnection()) {
				return ShardTenancyFixture.insertNote(b, t, "after the freeze");
			}
		}, t, entry.version());
		assertThat(fixture.rows("shard-1", "note", t)).isZero();
	}

	@Test
	@DisplayName("a statement that fails after its write check keeps the transaction's hold on the fence lock: the "
			+ "transaction's next write commits, the freeze goes through once the connection is returned")
	void failedStatementKeepsTheHold() throws Exception {
		String t = newTenant();
		DirectoryEntry entry = admin.create(t, "shard-1");
		UUID existing;
		try (TenantContext.Scope scope = TenantContext.bind(t); Connection c = routed.getConnection()) {
			existing = ShardTenancyFixture.insertNote(c, t, "committed");
		}
		CompletableFuture<Void> freeze;
		try (TenantContext.Scope scope = TenantContext.bind(t); Connection a = routed.getConnection()) {
			a.setAutoCommit(false);
			// The write check accepts, then the duplicate key fails the statement, which H2 rolls back alone.
			assertThatThrownBy(() -> {
				try (PreparedStatement ps = a
					.prepareStatement("INSERT INTO note (id, tenant_id, body) VALUES (?, ?, 'duplicate')")) {
					ps.setObject(1, existing);
					ps.setString(2, t);
					ps.executeUpdate();
				}
			}).isInstanceOf(SQLException.class).satisfies(ex -> assertThat(FenceRejection.find(ex)).isEmpty());

			freeze = freezeAsync(t, entry);
			await("the freeze waits for the transaction").atMost(Duration.ofSeconds(30))
				.until(() -> fenceLockWaiters() == 1);
			ShardTenancyFixture.insertNote(a, t, "written while the freeze waits");
			a.commit();
		}
		freeze.get(30, TimeUnit.SECONDS);
		assertFrozen(() -> {
			try (TenantContext.Scope scope = TenantContext.bind(t); Connection b = routed.getConnection()) {
				return ShardTenancyFixture.insertNote(b, t, "after the freeze");
			}
		}, t, entry.version());
		assertThat(fixture.rows("shard-1", "note", t)).isEqualTo(2);
	}

	@Test
	@DisplayName("a transaction whose directory version changes after its first write is checked again: a stale "
			+ "version is rejected with STALE")
	void changedVariablesAfterTheFirstWriteAreCheckedAgain() throws Exception {
		String t = newTenant();
		DirectoryEntry entry = admin.create(t, "shard-1");
		try (TenantContext.Scope scope = TenantContext.bind(t); Connection a = routed.getConnection()) {
			a.setAutoCommit(false);
			ShardTenancyFixture.insertNote(a, t, "at the routed version");
			a.createStatement().execute("SET @SHARD_VERSION = " + (entry.version() - 1));

			assertThatThrownBy(() -> ShardTenancyFixture.insertNote(a, t, "at a stale version"))
				.satisfies(ex -> assertThat(FenceRejection.find(ex).orElseThrow().reason()).isEqualTo("STALE"));
			a.rollback();
		}
		assertThat(fixture.rows("shard-1", "note", t)).isZero();
	}

	private static long captureStatements() {
		return ShardTenancyFixture.queryLong(shard("shard-1"),
				"SELECT COALESCE(SUM(EXECUTION_COUNT), 0) FROM INFORMATION_SCHEMA.QUERY_STATISTICS "
						+ "WHERE SQL_STATEMENT LIKE 'SELECT @SHARD_ROLE, (SELECT COUNT(*) FROM shard_capture%'");
	}

	private static void captureOn(String tenant) throws SQLException {
		ChangeCapture.captureOn(fixture.topology().shard("shard-1"), tenant, "move-of-" + tenant,
				List.of(new TablePlan(new TenantTable("note", "tenant_id"), "NOTE", List.of(), List.of())));
	}

	@Test
	@DisplayName("a captured tenant's transaction logs every written row in the change log, and learns that it is "
			+ "captured without a statement")
	void capturedTenantLogsEveryRowWithoutAsking() throws Exception {
		String t = newTenant();
		admin.create(t, "shard-1");
		captureOn(t);
		queryStatistics(true);
		try (TenantContext.Scope scope = TenantContext.bind(t); Connection c = routed.getConnection()) {
			c.setAutoCommit(false);
			UUID first = ShardTenancyFixture.insertNote(c, t, "one");
			ShardTenancyFixture.insertNote(c, t, "two");
			assertThat(update(c, "UPDATE note SET body = 'one, changed' WHERE id = ?", first)).isEqualTo(1);
			c.commit();
			assertThat(captureStatements()).as("capture statements for 3 writes in one transaction").isZero();
			assertThat(ShardTenancyFixture.queryLong(shard("shard-1"),
					"SELECT COUNT(*) FROM shard_change WHERE tenant_id = ?", t)).as("change log entries").isEqualTo(3);
		}
		finally {
			queryStatistics(false);
			ChangeCapture.captureOff(fixture.topology().shard("shard-1"), t);
		}
	}

	@Test
	@DisplayName("capture turned on while a transaction of the tenant holds its fence lock waits for it: the writes of "
			+ "that transaction are not logged, every write committed after capture is on is")
	void captureTurnedOnDuringATransactionWaitsForIt() throws Exception {
		String t = newTenant();
		admin.create(t, "shard-1");
		CompletableFuture<Void> capture;
		try (TenantContext.Scope scope = TenantContext.bind(t); Connection a = routed.getConnection()) {
			a.setAutoCommit(false);
			ShardTenancyFixture.insertNote(a, t, "before capture, first");
			capture = CompletableFuture.runAsync(() -> {
				try {
					captureOn(t);
				}
				catch (SQLException ex) {
					throw new IllegalStateException(ex);
				}
			}, this.threads);
			await("capture waits for the writer's hold").atMost(Duration.ofSeconds(30))
				.until(() -> fenceLockWaiters() == 1);
			ShardTenancyFixture.insertNote(a, t, "before capture, second");
			a.commit();
		}
		capture.get(30, TimeUnit.SECONDS);
		try (TenantContext.Scope scope = TenantContext.bind(t); Connection a = routed.getConnection()) {
			a.setAutoCommit(false);
			ShardTenancyFixture.insertNote(a, t, "after capture, first");
			ShardTenancyFixture.insertNote(a, t, "after capture, second");
			a.commit();
			assertThat(ShardTenancyFixture.queryLong(shard("shard-1"),
					"SELECT COUNT(*) FROM shard_change WHERE tenant_id = ?", t)).isEqualTo(2);
		}
		finally {
			ChangeCapture.captureOff(fixture.topology().shard("shard-1"), t);
		}
	}

	/** Freezes the tenant on shard-1 from another connection and thread, as a mover would. */
	private CompletableFuture<Void> freezeAsync(String tenant, DirectoryEntry entry) {
		return CompletableFuture.runAsync(
				() -> ShardFence.set(shard("shard-1"), "shard-1", tenant, FenceState.FROZEN, entry.version()),
				this.threads);
	}

}
