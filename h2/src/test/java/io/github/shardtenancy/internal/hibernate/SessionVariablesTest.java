package io.github.shardtenancy.internal.hibernate;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.List;

import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.RouterSettings;
import io.github.shardtenancy.TenantState;
import io.github.shardtenancy.internal.fence.FenceState;
import io.github.shardtenancy.internal.fence.ShardFence;
import io.github.shardtenancy.internal.jdbc.ConnectionGuard;
import io.github.shardtenancy.internal.lifecycle.DirectoryAdmin;
import io.github.shardtenancy.retry.FenceRejection;
import io.github.shardtenancy.testing.Note;
import io.github.shardtenancy.testing.ShardTenancyFixture;
import org.hibernate.Session;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static io.github.shardtenancy.testing.Transactions.inTransaction;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * One shard with a pool of exactly one connection, so that every transaction and every raw borrow gets the same
 * physical connection (checked with H2's {@code SESSION_ID()}).
 */
@DisplayName("Session variables on a pooled connection")
class SessionVariablesTest {

	private static ShardTenancyFixture fixture;

	private static SessionFactory sessionFactory;

	private static DirectoryAdmin admin;

	@BeforeAll
	static void setUp() {
		fixture = ShardTenancyFixture.create("session-vars", 1, 1, RouterSettings.defaults());
		sessionFactory = fixture.sessionFactory();
		admin = fixture.admin(fixture.router());
	}

	@AfterAll
	static void tearDown() {
		fixture.close();
	}

	@AfterEach
	void nothingLeftBehind() {
		assertThat(ConnectionGuard.heldTenant()).isNull();
		assertThat(fixture.activeConnections()).isZero();
	}

	/** What a statement sees: {@code [session id, @SHARD_TENANT, @SHARD_VERSION, @SHARD_ROLE]}. */
	private static List<Object> seen(Session session) {
		Object[] row = session
			.createNativeQuery("SELECT SESSION_ID(), @SHARD_TENANT, @SHARD_VERSION, @SHARD_ROLE", Object[].class)
			.getSingleResult();
		return Arrays.asList(((Number) row[0]).longValue(), row[1], row[2] == null ? null : ((Number) row[2]).longValue(),
				row[3]);
	}

	private static List<Object> rawBorrow() throws SQLException {
		try (Connection c = fixture.pool("shard-1").getConnection(); Statement s = c.createStatement();
				ResultSet rs = s.executeQuery("SELECT SESSION_ID(), @SHARD_TENANT, @SHARD_VERSION, @SHARD_ROLE")) {
			rs.next();
			return Arrays.asList(rs.getLong(1), rs.getObject(2), rs.getObject(3), rs.getObject(4));
		}
	}

	@Test
	@DisplayName("transaction for t1, then t2, then a raw borrow: each sees only its own values, the raw borrow none")
	void laterBorrowerNeverSeesPreviousValues() throws Exception {
		DirectoryEntry t1 = admin.create("vars-t1", "shard-1");
		DirectoryEntry t2 = admin.create("vars-t2", "shard-1");

		List<Object> first = inTransaction(sessionFactory, "vars-t1", session -> {
			session.persist(new Note("one"));
			return seen(session);
		});
		List<Object> second = inTransaction(sessionFactory, "vars-t2", SessionVariablesTest::seen);
		List<Object> raw = rawBorrow();

		assertThat(first.subList(1, 4)).containsExactly("vars-t1", t1.version(), null);
		assertThat(second.subList(1, 4)).containsExactly("vars-t2", t2.version(), null);
		assertThat(raw.subList(1, 4)).containsExactly(null, null, null);
		assertThat(second.get(0)).as("same physical connection").isEqualTo(first.get(0));
		assertThat(raw.get(0)).as("same physical connection").isEqualTo(first.get(0));
	}

	@Test
	@DisplayName("after a rolled-back transaction a raw borrow sees no tenant and no version, and nothing was written")
	void rolledBackTransactionLeavesNothing() throws Exception {
		admin.create("vars-rollback", "shard-1");

		assertThatThrownBy(() -> inTransaction(sessionFactory, "vars-rollback", session -> {
			session.persist(new Note("rolled back"));
			session.flush();
			assertThat(seen(session).get(1)).isEqualTo("vars-rollback");
			throw new IllegalStateException("the application fails");
		})).hasMessage("the application fails");

		assertThat(rawBorrow().subList(1, 4)).containsExactly(null, null, null);
		assertThat(fixture.rows("shard-1", "note", "vars-rollback")).isZero();
	}

	@Test
	@DisplayName("after a fence rejection at begin a raw borrow sees no tenant and no version")
	void rejectionAtBeginLeavesNothing() throws Exception {
		DirectoryEntry entry = admin.create("vars-stale", "shard-1");
		ShardFence.set(fixture.pool("shard-1"), "shard-1", "vars-stale", FenceState.OWNED, entry.version() + 1);

		assertThatThrownBy(() -> inTransaction(sessionFactory, "vars-stale", SessionVariablesTest::seen))
			.satisfies(ex -> assertThat(FenceRejection.find(ex).orElseThrow().reason()).isEqualTo("STALE"));

		assertThat(rawBorrow().subList(1, 4)).containsExactly(null, null, null);
	}

	@Test
	@DisplayName("after a rejected and rolled-back attempt, the retry's first statement sees the new directory version")
	void retryAfterRejectionSeesNewVersion() throws Exception {
		DirectoryEntry entry = admin.create("vars-retry", "shard-1");
		int[] attempts = { 0 };
		List<Object> firstStatementOfRetry = null;
		for (int attempt = 1; attempt <= 2 && firstStatementOfRetry == null; attempt++) {
			try {
				firstStatementOfRetry = inTransaction(sessionFactory, "vars-retry", session -> {
					List<Object> first = seen(session);
					if (++attempts[0] == 1) {
						// Meanwhile another instance bumps the entry and the fence, on a connection of its own.
						DirectoryEntry bumped = fixture.directory().update("vars-retry", entry.epoch(), "shard-1",
								TenantState.ACTIVE, null, "other-instance");
						try (Connection other = fixture.rawConnection("shard-1")) {
							other.createStatement().executeUpdate("UPDATE shard_fence SET min_version = "
									+ bumped.version() + " WHERE tenant_id = 'vars-retry'");
						}
						catch (SQLException ex) {
							throw new IllegalStateException(ex);
						}
					}
					session.persist(new Note("attempt " + attempts[0]));
					session.flush();
					return first;
				});
			}
			catch (RuntimeException ex) {
				FenceRejection rejection = FenceRejection.find(ex).orElseThrow(() -> ex);
				assertThat(rejection.reason()).isEqualTo("STALE");
				assertThat(rejection.seenVersion()).isEqualTo(entry.version());
				fixture.router().invalidate(rejection.tenantId()); // what the retry layer does
			}
		}

		long newVersion = fixture.directory().find("vars-retry").orElseThrow().version();
		assertThat(attempts[0]).isEqualTo(2);
		assertThat(newVersion).isGreaterThan(entry.version());
		assertThat(firstStatementOfRetry.subList(1, 3)).containsExactly("vars-retry", newVersion);
		assertThat(fixture.rows("shard-1", "note", "vars-retry")).isEqualTo(1);
		assertThat(rawBorrow().subList(1, 4)).containsExactly(null, null, null);
	}

}
