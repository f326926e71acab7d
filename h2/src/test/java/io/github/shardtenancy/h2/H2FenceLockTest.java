package io.github.shardtenancy.h2;

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
import java.util.concurrent.atomic.AtomicLong;

import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

/**
 * The tenants' fence lock of the H2 fence ({@link H2TenantLocks}), on an in-memory H2 and unpooled connections: a hold
 * ends exactly with what it was taken for (a transaction's commit or rollback, the session's close or kill, the
 * {@code end} of a begin in auto-commit mode), writers of one tenant hold it together, a freeze holding it refuses
 * new transactions, and a freeze that times out leaves nothing behind. Each freeze runs on a thread of its own and is
 * awaited for less than the lock timeout (10 s), so a hold that outlived its transaction fails the test.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayName("H2 fence lock")
class H2FenceLockTest {

	private final H2FenceDialect dialect = new H2FenceDialect();

	private final ExecutorService executor = Executors.newCachedThreadPool();

	private final AtomicLong ids = new AtomicLong();

	private JdbcDataSource shard;

	@BeforeAll
	void migrate() throws SQLException {
		this.shard = new JdbcDataSource();
		this.shard.setURL("jdbc:h2:mem:fence-lock-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000");
		ShardTenancyMigrations.migrateShard(this.shard, "lock-shard", List.of("db/dialect-contract/contract.xml"));
		try (Connection c = this.shard.getConnection()) {
			this.dialect.installWriteCheck(c, "contract_note", "tenant_id");
			this.dialect.installChangeCapture(c, "contract_note", "tenant_id");
		}
	}

	@AfterAll
	void shutdown() throws SQLException {
		this.executor.shutdownNow();
		try (Connection c = this.shard.getConnection()) {
			c.createStatement().execute("SHUTDOWN");
		}
	}

	@Test
	@DisplayName("a transaction's hold ends with its rollback, before end: a freeze is granted at once")
	void holdEndsWithRollback() throws Exception {
		String tenant = owned("rollback");
		try (Connection writer = this.shard.getConnection()) {
			beginWriting(writer, tenant);
			writer.rollback();
			freezeAsync(tenant).get(5, TimeUnit.SECONDS);
			this.dialect.end(writer);
		}
		assertThat(count(tenant)).isZero();
	}

	@Test
	@DisplayName("the hold of a transaction whose connection is closed without end ends with the close; its write is "
			+ "rolled back")
	void holdEndsWhenTheConnectionCloses() throws Exception {
		String tenant = owned("closed");
		CompletableFuture<Void> freeze;
		try (Connection writer = this.shard.getConnection(); Connection observer = this.shard.getConnection()) {
			beginWriting(writer, tenant);
			freeze = freezeAsync(tenant);
			awaitWaitingFreeze(observer);
			assertThat(freeze).isNotDone();
		}
		freeze.get(5, TimeUnit.SECONDS);
		assertThat(count(tenant)).isZero();
	}

	@Test
	@DisplayName("the hold of a transaction whose session is killed (ABORT_SESSION) ends with the kill; its write is "
			+ "rolled back")
	void holdEndsWhenTheSessionIsKilled() throws Exception {
		String tenant = owned("killed");
		try (Connection writer = this.shard.getConnection(); Connection observer = this.shard.getConnection()) {
			beginWriting(writer, tenant);
			long session;
			try (ResultSet rs = writer.createStatement().executeQuery("SELECT SESSION_ID()")) {
				rs.next();
				session = rs.getLong(1);
			}
			CompletableFuture<Void> freeze = freezeAsync(tenant);
			awaitWaitingFreeze(observer);
			try (PreparedStatement kill = observer.prepareStatement("CALL ABORT_SESSION(?)")) {
				kill.setLong(1, session);
				kill.execute();
			}
			freeze.get(5, TimeUnit.SECONDS);
		}
		assertThat(count(tenant)).isZero();
	}

	@Test
	@DisplayName("a begin in auto-commit mode (as the connection provider's) holds until end: a freeze waits for the end")
	void autoCommitBeginHoldsUntilEnd() throws Exception {
		String tenant = owned("auto-commit");
		try (Connection bound = this.shard.getConnection(); Connection observer = this.shard.getConnection()) {
			this.dialect.begin(bound, tenant, 1);
			bound.setAutoCommit(false);
			insert(bound, tenant);
			bound.commit();
			CompletableFuture<Void> freeze = freezeAsync(tenant);
			awaitWaitingFreeze(observer);
			assertThat(freeze).isNotDone();
			this.dialect.end(bound);
			freeze.get(5, TimeUnit.SECONDS);
			bound.setAutoCommit(true);
		}
		assertThat(count(tenant)).isEqualTo(1);
	}

	@Test
	@DisplayName("two transactions of one tenant write at once on one thread, neither waits for the other")
	void writersOfOneTenantRunAtOnce() throws Exception {
		String tenant = owned("together");
		try (Connection first = this.shard.getConnection(); Connection second = this.shard.getConnection()) {
			first.setAutoCommit(false);
			second.setAutoCommit(false);
			this.dialect.begin(first, tenant, 1);
			this.dialect.begin(second, tenant, 1);
			insert(first, tenant);
			insert(second, tenant);
			insert(first, tenant);
			second.commit();
			first.commit();
			this.dialect.end(first);
			this.dialect.end(second);
		}
		assertThat(count(tenant)).isEqualTo(3);
	}

	@Test
	@DisplayName("while a freeze holds the lock, a new transaction is rejected at begin with FROZEN; after its commit, "
			+ "it begins")
	void heldFreezeRefusesNewTransactions() throws Exception {
		String tenant = owned("held");
		try (Connection freeze = this.shard.getConnection(); Connection writer = this.shard.getConnection()) {
			freeze.setAutoCommit(false);
			this.dialect.lockTenant(freeze, tenant);
			writer.setAutoCommit(false);
			SQLException refused = catchThrowableOfType(SQLException.class,
					() -> this.dialect.begin(writer, tenant, 1));
			assertThat(refused.getSQLState()).isEqualTo("40001");
			assertThat(refused.getMessage()).contains("tenant '" + tenant + "'").contains(": FROZEN (");
			writer.rollback();
			this.dialect.end(writer);
			freeze.commit();

			this.dialect.begin(writer, tenant, 1);
			insert(writer, tenant);
			writer.commit();
			this.dialect.end(writer);
		}
		assertThat(count(tenant)).isEqualTo(1);
	}

	@Test
	@DisplayName("a freeze that times out waiting leaves no waiter behind: the next transaction of the tenant begins")
	void timedOutFreezeLeavesNothingBehind() throws Exception {
		String tenant = owned("timeout");
		try (Connection writer = this.shard.getConnection(); Connection freeze = this.shard.getConnection();
				Connection observer = this.shard.getConnection()) {
			beginWriting(writer, tenant);
			freeze.createStatement().execute("SET LOCK_TIMEOUT 100");
			freeze.setAutoCommit(false);
			SQLException timeout = catchThrowableOfType(SQLException.class,
					() -> this.dialect.lockTenant(freeze, tenant));
			assertThat(timeout.getSQLState()).isEqualTo("HYT00");
			freeze.rollback();
			assertThat(H2Fence.sessionsWaitingForFenceLock(observer)).isZero();
			writer.commit();
			this.dialect.end(writer);

			this.dialect.begin(writer, tenant, 1);
			insert(writer, tenant);
			writer.commit();
			this.dialect.end(writer);
		}
		assertThat(count(tenant)).isEqualTo(2);
	}

	@Test
	@DisplayName("a hold that outlives its transactions (a begin in auto-commit mode) does not keep its first verdict "
			+ "when its own session freezes the tenant: the next write is rejected with FROZEN")
	void ownFreezeEndsTheWriteVerdictOfAnAutoCommitHold() throws Exception {
		String tenant = owned("own-freeze");
		try (Connection bound = this.shard.getConnection()) {
			this.dialect.begin(bound, tenant, 1);
			bound.setAutoCommit(false);
			insert(bound, tenant);
			bound.commit();

			this.dialect.lockTenant(bound, tenant);
			try (PreparedStatement ps = bound
				.prepareStatement("UPDATE shard_fence SET state = 'FROZEN' WHERE tenant_id = ?")) {
				ps.setString(1, tenant);
				ps.executeUpdate();
			}
			bound.commit();

			SQLException refused = catchThrowableOfType(SQLException.class, () -> insert(bound, tenant));
			assertThat(refused.getSQLState()).isEqualTo("40001");
			assertThat(refused.getMessage()).contains("tenant '" + tenant + "'").contains(": FROZEN (");
			bound.rollback();
			this.dialect.end(bound);
			bound.setAutoCommit(true);
		}
		assertThat(count(tenant)).isEqualTo(1);
	}

	@Test
	@DisplayName("a transaction that began while its tenant was FROZEN (reads accepted) has every write rejected, the "
			+ "second as the first")
	void frozenAtBeginRejectsEveryWrite() throws Exception {
		String tenant = owned("frozen-begin");
		freezeAsync(tenant).get(5, TimeUnit.SECONDS);
		try (Connection reader = this.shard.getConnection()) {
			reader.setAutoCommit(false);
			this.dialect.begin(reader, tenant, 1);
			for (int attempt = 0; attempt < 2; attempt++) {
				SQLException refused = catchThrowableOfType(SQLException.class, () -> insert(reader, tenant));
				assertThat(refused.getSQLState()).isEqualTo("40001");
				assertThat(refused.getMessage()).contains(": FROZEN (");
			}
			reader.rollback();
			this.dialect.end(reader);
		}
		assertThat(count(tenant)).isZero();
	}

	/** Begins a transaction of the tenant on the connection and writes a row in it, leaving it open. */
	private void beginWriting(Connection writer, String tenant) throws SQLException {
		writer.setAutoCommit(false);
		this.dialect.begin(writer, tenant, 1);
		insert(writer, tenant);
	}

	private static void awaitWaitingFreeze(Connection observer) {
		await("the freeze waits for the tenant's fence lock").atMost(Duration.ofSeconds(5))
			.until(() -> H2Fence.sessionsWaitingForFenceLock(observer) == 1);
	}

	/** Creates a tenant OWNED at version 1 and returns it. */
	private String owned(String prefix) throws SQLException {
		String tenant = prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
		try (Connection c = this.shard.getConnection(); PreparedStatement ps = c.prepareStatement(
				"INSERT INTO shard_fence (tenant_id, state, min_version, updated_at) VALUES (?, 'OWNED', 1, CURRENT_TIMESTAMP)")) {
			ps.setString(1, tenant);
			ps.executeUpdate();
		}
		return tenant;
	}

	/** Freezes the tenant as the library does (lockTenant, UPDATE, commit) on a thread and connection of its own. */
	private CompletableFuture<Void> freezeAsync(String tenant) {
		return CompletableFuture.runAsync(() -> {
			try (Connection c = this.shard.getConnection()) {
				c.setAutoCommit(false);
				this.dialect.lockTenant(c, tenant);
				try (PreparedStatement ps = c
					.prepareStatement("UPDATE shard_fence SET state = 'FROZEN' WHERE tenant_id = ?")) {
					ps.setString(1, tenant);
					ps.executeUpdate();
				}
				c.commit();
			}
			catch (SQLException ex) {
				throw new IllegalStateException(ex);
			}
		}, this.executor);
	}

	private void insert(Connection c, String tenant) throws SQLException {
		try (PreparedStatement ps = c
			.prepareStatement("INSERT INTO contract_note (id, tenant_id, body) VALUES (?, ?, 'note')")) {
			ps.setLong(1, this.ids.incrementAndGet());
			ps.setString(2, tenant);
			ps.executeUpdate();
		}
	}

	private long count(String tenant) throws SQLException {
		try (Connection c = this.shard.getConnection();
				PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM contract_note WHERE tenant_id = ?")) {
			ps.setString(1, tenant);
			try (ResultSet rs = ps.executeQuery()) {
				rs.next();
				return rs.getLong(1);
			}
		}
	}

}
