package io.github.shardtenancy.it.routing;

import io.github.shardtenancy.retry.FenceRejection;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.RouterSettings;
import io.github.shardtenancy.internal.fence.FenceState;
import io.github.shardtenancy.internal.fence.ShardFence;
import io.github.shardtenancy.it.support.AppInstance;
import io.github.shardtenancy.it.support.PgNotes;
import io.github.shardtenancy.testing.pg.PostgresCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

@DisplayName("PostgreSQL fence: the PL/pgSQL checks reject what the H2 fence rejects, with the same message")
class PostgresFenceTest {

	static PostgresCluster cluster;

	static AppInstance app;

	@BeforeAll
	static void servers() {
		cluster = PostgresCluster.shared();
		app = AppInstance.plain(cluster, "fence-app", RouterSettings.defaults(), 3);
	}

	@AfterAll
	static void close() {
		app.close();
	}

	@Test
	@DisplayName("a FROZEN tenant can still read but every write is rejected with FROZEN")
	void frozenTenantReadsButCannotWrite() throws Exception {
		String tenant = PostgresCluster.tenant("frozen");
		DirectoryEntry entry = app.admin.create(tenant, "shard-1");
		app.inTransaction(tenant, c -> {
			PgNotes.insertNote(c, tenant, "before the freeze");
			return null;
		});
		ShardFence.set(shard1(), "shard-1", tenant, FenceState.FROZEN, entry.version());

		long visible = app.inTransaction(tenant, c -> countVisible(c, tenant));
		assertThat(visible).isEqualTo(1);
		SQLException rejected = catchThrowableOfType(SQLException.class, () -> app.inTransaction(tenant, c -> {
			PgNotes.insertNote(c, tenant, "during the freeze");
			return null;
		}));
		assertThat(rejected.getSQLState()).isEqualTo("40001");
		assertThat(rejected.getMessage()).contains("shard fence: tenant '" + tenant + "' rejected on shard 'shard-1': "
				+ "FROZEN (directory version seen " + entry.version() + ", required " + entry.version() + ")");
		assertThat(FenceRejection.find(rejected)).get().satisfies(r -> assertThat(r.isFrozen()).isTrue());
	}

	@Test
	@DisplayName("a row of another tenant is rejected with FOREIGN_ROW, on insert and on update")
	void rowOfAnotherTenantIsRejected() throws Exception {
		String tenant = PostgresCluster.tenant("own");
		String other = PostgresCluster.tenant("other");
		app.admin.create(tenant, "shard-1");
		app.admin.create(other, "shard-1");
		app.inTransaction(tenant, c -> {
			PgNotes.insertNote(c, tenant, "mine");
			return null;
		});

		SQLException insert = catchThrowableOfType(SQLException.class, () -> app.inTransaction(tenant, c -> {
			PgNotes.insertNote(c, other, "smuggled");
			return null;
		}));
		assertThat(FenceRejection.find(insert)).get().satisfies(r -> assertThat(r.reason()).isEqualTo("FOREIGN_ROW"));

		SQLException update = catchThrowableOfType(SQLException.class, () -> app.inTransaction(tenant, c -> {
			try (PreparedStatement ps = c.prepareStatement("UPDATE pg_note SET tenant_id = ? WHERE tenant_id = ?")) {
				ps.setString(1, other);
				ps.setString(2, tenant);
				return ps.executeUpdate();
			}
		}));
		assertThat(FenceRejection.find(update)).get().satisfies(r -> assertThat(r.reason()).isEqualTo("FOREIGN_ROW"));
		assertThat(PgNotes.countNotes(app, "shard-1", other)).isZero();
		assertThat(PgNotes.countNotes(app, "shard-1", tenant)).isEqualTo(1);
	}

	@Test
	@DisplayName("a freeze waits for the tenant's in-flight write (FOR SHARE on the fence row); the next write is rejected")
	void freezeWaitsForAnInFlightWriter() throws Exception {
		String tenant = PostgresCluster.tenant("race");
		DirectoryEntry entry = app.admin.create(tenant, "shard-1");
		try (HikariDataSource freezer = cluster.pool(cluster.shard("shard-1"), 1, "fence-freezer");
				HikariDataSource watcher = cluster.pool(cluster.shard("shard-1"), 1, "fence-observer")) {
			CompletableFuture<Void> freeze;
			try (io.github.shardtenancy.TenantContext.Scope scope = io.github.shardtenancy.TenantContext.bind(tenant);
					Connection writer = app.dataSource.getConnection()) {
				writer.setAutoCommit(false); // one transaction, committed below
				PgNotes.insertNote(writer, tenant, "in flight");
				freeze = CompletableFuture.runAsync(
						() -> ShardFence.set(freezer, "shard-1", tenant, FenceState.FROZEN, entry.version()));
				awaitLockWait(watcher, "fence-freezer");
				assertThat(freeze).isNotDone();
				writer.commit();
			}
			freeze.get(30, TimeUnit.SECONDS);
		}
		assertThat(PgNotes.countNotes(app, "shard-1", tenant)).isEqualTo(1);
		SQLException after = catchThrowableOfType(SQLException.class, () -> app.inTransaction(tenant, c -> {
			PgNotes.insertNote(c, tenant, "after the freeze");
			return null;
		}));
		assertThat(FenceRejection.find(after)).get().satisfies(r -> assertThat(r.reason()).isEqualTo("FROZEN"));
	}

	@Test
	@DisplayName("after a transaction's first accepted write, a further row of another tenant is still FOREIGN_ROW")
	void laterRowOfAnotherTenantIsRejectedAfterAnAcceptedWrite() throws Exception {
		String tenant = PostgresCluster.tenant("first");
		String other = PostgresCluster.tenant("second");
		app.admin.create(tenant, "shard-1");
		app.admin.create(other, "shard-1");

		SQLException insert = catchThrowableOfType(SQLException.class, () -> app.inTransaction(tenant, c -> {
			PgNotes.insertNote(c, tenant, "accepted, the fence row is now held");
			PgNotes.insertNote(c, tenant, "accepted without reading the fence row");
			PgNotes.insertNote(c, other, "smuggled after two accepted rows");
			return null;
		}));
		SQLException update = catchThrowableOfType(SQLException.class, () -> app.inTransaction(tenant, c -> {
			PgNotes.insertNote(c, tenant, "accepted");
			try (PreparedStatement ps = c.prepareStatement("UPDATE pg_note SET tenant_id = ? WHERE tenant_id = ?")) {
				ps.setString(1, other);
				ps.setString(2, tenant);
				return ps.executeUpdate();
			}
		}));

		assertThat(FenceRejection.find(insert)).get().satisfies(r -> assertThat(r.reason()).isEqualTo("FOREIGN_ROW"));
		assertThat(FenceRejection.find(update)).get().satisfies(r -> assertThat(r.reason()).isEqualTo("FOREIGN_ROW"));
		assertThat(PgNotes.countNotes(app, "shard-1", tenant)).isZero();
		assertThat(PgNotes.countNotes(app, "shard-1", other)).isZero();
	}

	@Test
	@DisplayName("after a transaction's first accepted write, deleting a row of another tenant is still FOREIGN_ROW")
	void laterDeleteOfAnotherTenantsRowIsRejectedAfterAnAcceptedWrite() throws Exception {
		String tenant = PostgresCluster.tenant("del-own");
		String other = PostgresCluster.tenant("del-other");
		app.admin.create(tenant, "shard-1");
		app.admin.create(other, "shard-1");
		app.inTransaction(other, c -> {
			PgNotes.insertNote(c, other, "the other tenant's row");
			return null;
		});

		SQLException delete = catchThrowableOfType(SQLException.class, () -> app.inTransaction(tenant, c -> {
			PgNotes.insertNote(c, tenant, "accepted, the fence row is now held");
			try (PreparedStatement ps = c.prepareStatement("DELETE FROM pg_note WHERE tenant_id = ?")) {
				ps.setString(1, other);
				return ps.executeUpdate();
			}
		}));

		assertThat(FenceRejection.find(delete)).get().satisfies(r -> assertThat(r.reason()).isEqualTo("FOREIGN_ROW"));
		assertThat(PgNotes.countNotes(app, "shard-1", other)).isEqualTo(1);
		assertThat(PgNotes.countNotes(app, "shard-1", tenant)).isZero();
	}

	@Test
	@DisplayName("the fence lock a transaction took at begin stays held to its end, past a savepoint rolled back: a "
			+ "freeze waits for its later writes too")
	void freezeWaitsForATransactionThatWroteBefore() throws Exception {
		String tenant = PostgresCluster.tenant("held");
		DirectoryEntry entry = app.admin.create(tenant, "shard-1");
		try (HikariDataSource freezer = cluster.pool(cluster.shard("shard-1"), 1, "fence-held-freezer");
				HikariDataSource watcher = cluster.pool(cluster.shard("shard-1"), 1, "fence-held-observer")) {
			CompletableFuture<Void> freeze;
			try (io.github.shardtenancy.TenantContext.Scope scope = io.github.shardtenancy.TenantContext.bind(tenant);
					Connection writer = app.dataSource.getConnection()) {
				writer.setAutoCommit(false); // one transaction, committed below
				java.sql.Savepoint before = writer.setSavepoint();
				PgNotes.insertNote(writer, tenant, "undone with its savepoint");
				writer.rollback(before);
				PgNotes.insertNote(writer, tenant, "first");
				freeze = CompletableFuture.runAsync(
						() -> ShardFence.set(freezer, "shard-1", tenant, FenceState.FROZEN, entry.version()));
				awaitLockWait(watcher, "fence-held-freezer");
				PgNotes.insertNote(writer, tenant, "second, while the freeze waits");
				assertThat(freeze).isNotDone();
				writer.commit();
			}
			freeze.get(30, TimeUnit.SECONDS);
		}
		assertThat(PgNotes.countNotes(app, "shard-1", tenant)).isEqualTo(2);
	}

	@Test
	@DisplayName("a connection nobody routed (no tenant bound) cannot write a tenant table: NO_TENANT")
	void unroutedWriteIsRejected() throws Exception {
		String tenant = PostgresCluster.tenant("unrouted");
		app.admin.create(tenant, "shard-2");
		try (Connection raw = app.topology.shard("shard-2").dataSource().getConnection()) {
			SQLException rejected = catchThrowableOfType(SQLException.class,
					() -> PgNotes.insertNote(raw, tenant, "raw"));
			assertThat(FenceRejection.find(rejected)).get().satisfies(r -> {
				assertThat(r.reason()).isEqualTo("NO_TENANT");
				assertThat(r.shardId()).isEqualTo("shard-2");
			});
		}
	}

	private static javax.sql.DataSource shard1() {
		return app.topology.shard("shard-1").dataSource();
	}

	private static long countVisible(Connection c, String tenant) throws SQLException {
		try (PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM pg_note WHERE tenant_id = ?")) {
			ps.setString(1, tenant);
			try (ResultSet rs = ps.executeQuery()) {
				rs.next();
				return rs.getLong(1);
			}
		}
	}

	@Test
	@DisplayName("an UPDATE in a transaction begun before a move runs before its freeze, copy, flip and clean: the "
			+ "move waits for it, and the update reaches the new owner")
	void updateInATransactionBegunBeforeAMoveIsNotLost() throws Exception {
		assertMoveWaitsForTheTransaction("update", "UPDATE pg_note SET text = 'updated' WHERE id = ?", 1);
	}

	@Test
	@DisplayName("a DELETE in a transaction begun before a move runs before its freeze, copy, flip and clean: the move "
			+ "waits for it, and the row is gone on the new owner")
	void deleteInATransactionBegunBeforeAMoveIsNotLost() throws Exception {
		assertMoveWaitsForTheTransaction("delete", "DELETE FROM pg_note WHERE id = ?", 0);
	}

	/**
	 * Begins a transaction of a new tenant on shard-1 and reads its note; another thread moves the tenant to shard-2
	 * (the basic mover: freeze, copy, flip, and clean before it returns), whose freeze waits for the transaction's
	 * fence lock; then the statement runs in the first transaction and commits, and the move completes with it.
	 * (Before the fence lock was held from begin on, the move could complete first and the statement match no row.)
	 */
	private static void assertMoveWaitsForTheTransaction(String name, String statement, int notesAfter)
			throws Exception {
		String tenant = PostgresCluster.tenant("cleaned-" + name);
		app.admin.create(tenant, "shard-1");
		UUID id = UUID.randomUUID();
		app.inTransaction(tenant, c -> {
			try (PreparedStatement ps = c
				.prepareStatement("INSERT INTO pg_note (id, tenant_id, text) VALUES (?, ?, 'before the move')")) {
				ps.setObject(1, id);
				ps.setString(2, tenant);
				return ps.executeUpdate();
			}
		});

		CompletableFuture<?>[] move = new CompletableFuture<?>[1];
		try (HikariDataSource watcher = cluster.pool(cluster.shard("shard-1"), 1, "cleaned-observer")) {
			int changed = app.inTransaction(tenant, c -> {
				try (PreparedStatement read = c.prepareStatement("SELECT text FROM pg_note WHERE id = ?")) {
					read.setObject(1, id);
					try (ResultSet rs = read.executeQuery()) {
						assertThat(rs.next()).as("the note, read before the move").isTrue();
					}
				}
				move[0] = CompletableFuture.runAsync(() -> app.admin.move(tenant, "shard-2"));
				await("the move's freeze waits for the transaction").atMost(Duration.ofSeconds(30))
					.until(() -> advisoryLockWaits(watcher) > 0);
				assertThat(move[0]).isNotDone();
				return execute(c, statement, id);
			});
			assertThat(changed).isEqualTo(1);
		}
		move[0].get(60, TimeUnit.SECONDS);
		assertThat(PgNotes.countNotes(app, "shard-1", tenant)).as("source cleaned").isZero();
		assertThat(PgNotes.countNotes(app, "shard-2", tenant)).isEqualTo(notesAfter);
		if (notesAfter == 1) {
			String text = app.inTransaction(tenant, c -> {
				try (PreparedStatement ps = c.prepareStatement("SELECT text FROM pg_note WHERE id = ?")) {
					ps.setObject(1, id);
					try (ResultSet rs = ps.executeQuery()) {
						rs.next();
						return rs.getString(1);
					}
				}
			});
			assertThat(text).isEqualTo("updated");
		}
	}

	/** Sessions of the shard waiting for an advisory lock (the fence lock). */
	private static long advisoryLockWaits(HikariDataSource observer) throws SQLException {
		try (Connection c = observer.getConnection(); PreparedStatement ps = c.prepareStatement(
				"SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND wait_event = 'advisory'");
				ResultSet rs = ps.executeQuery()) {
			rs.next();
			return rs.getLong(1);
		}
	}

	@Test
	@DisplayName("a transaction whose UPDATEs match no row holds the fence lock: a freeze waits for it, and the "
			+ "tenant's next UPDATE of a row after the freeze is rejected with FROZEN")
	void updateMatchingNoRowMakesTheFreezeWait() throws Exception {
		String tenant = PostgresCluster.tenant("norow");
		DirectoryEntry entry = app.admin.create(tenant, "shard-1");
		String update = "UPDATE pg_note SET text = 'x' WHERE id = ?";
		try (HikariDataSource freezer = cluster.pool(cluster.shard("shard-1"), 1, "norow-freezer");
				HikariDataSource watcher = cluster.pool(cluster.shard("shard-1"), 1, "norow-observer")) {
			CompletableFuture<Void> freeze;
			try (io.github.shardtenancy.TenantContext.Scope scope = io.github.shardtenancy.TenantContext.bind(tenant);
					Connection writer = app.dataSource.getConnection()) {
				writer.setAutoCommit(false); // one transaction, committed below
				PgNotes.insertNote(writer, tenant, "updated after the freeze");
				assertThat(execute(writer, update, UUID.randomUUID())).isZero();
				assertThat(execute(writer, update, UUID.randomUUID())).as("the fast path").isZero();
				freeze = CompletableFuture.runAsync(
						() -> ShardFence.set(freezer, "shard-1", tenant, FenceState.FROZEN, entry.version()));
				awaitLockWait(watcher, "norow-freezer");
				assertThat(freeze).isNotDone();
				writer.commit();
			}
			freeze.get(30, TimeUnit.SECONDS);
		}
		SQLException after = catchThrowableOfType(SQLException.class, () -> app.inTransaction(tenant, c -> {
			try (PreparedStatement ps = c.prepareStatement("UPDATE pg_note SET text = 'x' WHERE tenant_id = ?")) {
				ps.setString(1, tenant);
				return ps.executeUpdate();
			}
		}));
		assertThat(FenceRejection.find(after)).get().satisfies(r -> assertThat(r.reason()).isEqualTo("FROZEN"));
	}

	private static int execute(Connection c, String sql, UUID id) throws SQLException {
		try (PreparedStatement ps = c.prepareStatement(sql)) {
			ps.setObject(1, id);
			return ps.executeUpdate();
		}
	}

	/** Waits until the backend named {@code applicationName} is blocked on a lock (observed, not timed). */
	private static void awaitLockWait(HikariDataSource observer, String applicationName) {
		await(applicationName + " waits for a lock").atMost(Duration.ofSeconds(30))
			.until(() -> lockWaits(observer, applicationName) > 0);
	}

	private static long lockWaits(HikariDataSource observer, String applicationName) throws SQLException {
		try (Connection c = observer.getConnection(); PreparedStatement ps = c.prepareStatement(
				"SELECT count(*) FROM pg_stat_activity WHERE application_name = ? AND wait_event_type = 'Lock'")) {
			ps.setString(1, applicationName);
			try (ResultSet rs = ps.executeQuery()) {
				rs.next();
				return rs.getLong(1);
			}
		}
	}

}
