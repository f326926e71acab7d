package io.github.shardtenancy.it.routing;

import io.github.shardtenancy.retry.FenceRejection;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.List;

import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.TenantState;
import io.github.shardtenancy.it.boot.H2App;
import io.github.shardtenancy.it.boot.orders.OrderService.SessionView;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every shard pool has exactly one connection, so every transaction and every raw borrow of shard-1 use the same
 * physical connection (checked with H2's {@code SESSION_ID()}).
 */
@DisplayName("Session variables on a pool of one connection (H2, Spring Boot)")
class H2SessionVariablesTest {

	private static H2App app;

	@BeforeAll
	static void start() {
		app = H2App.start(H2App.newCluster("session-vars"), "instance",
				"shard-tenancy.shards.shard-1.maximum-pool-size=1", "shard-tenancy.shards.shard-2.maximum-pool-size=1");
	}

	@AfterAll
	static void stop() {
		app.close();
	}

	@AfterEach
	void noConnectionLeft() {
		assertThat(app.activeConnections()).isZero();
	}

	/** {@code [session id, @SHARD_TENANT, @SHARD_VERSION, @SHARD_ROLE]} on a connection borrowed raw from the pool. */
	private static List<Object> rawBorrow() throws SQLException {
		try (Connection c = app.pool("shard-1").getConnection(); Statement s = c.createStatement();
				ResultSet rs = s.executeQuery("SELECT SESSION_ID(), @SHARD_TENANT, @SHARD_VERSION, @SHARD_ROLE")) {
			rs.next();
			return Arrays.asList(rs.getLong(1), rs.getObject(2), rs.getObject(3), rs.getObject(4));
		}
	}

	private static SessionView seeAs(String tenant) {
		try (TenantContext.Scope scope = TenantContext.bind(tenant)) {
			return app.orders().see();
		}
	}

	@Test
	@DisplayName("transaction for t1, then t2, then a raw borrow: the raw borrow sees no tenant and no version")
	void rawBorrowAfterTwoTenantsSeesNothing() throws Exception {
		DirectoryEntry t1 = app.admin().create("vars-t1", "shard-1");
		DirectoryEntry t2 = app.admin().create("vars-t2", "shard-1");
		long sessionId = (Long) rawBorrow().get(0);

		assertThat(seeAs("vars-t1")).isEqualTo(new SessionView("vars-t1", t1.version(), "shard-1"));
		assertThat(seeAs("vars-t2")).isEqualTo(new SessionView("vars-t2", t2.version(), "shard-1"));
		List<Object> raw = rawBorrow();

		assertThat(raw.get(0)).as("the same physical connection throughout").isEqualTo(sessionId);
		assertThat(raw.subList(1, 4)).containsExactly(null, null, null);
	}

	@Test
	@DisplayName("after a rejected and rolled-back attempt, the retry's first statement sees the new version")
	void retryAfterRejectedAttemptSeesNewVersion() throws Exception {
		String t = "vars-retry";
		DirectoryEntry entry = app.admin().create(t, "shard-1");
		long[] bumpedVersion = { -1 };
		app.recorder().reset();
		app.orders().reset();
		// In the middle of the first attempt, after its first statement, another instance bumps the tenant's entry
		// and the shard's fence (on connections of its own): the first attempt's write is rejected as STALE.
		app.orders().afterFirstStatement((run) -> {
			if (run == 1) {
				DirectoryEntry bumped = app.directory().update(t, entry.epoch(), "shard-1", TenantState.ACTIVE, null,
						"other-instance");
				bumpedVersion[0] = bumped.version();
				try (Connection other = app.rawConnection("shard-1");
						Statement s = other.createStatement()) {
					s.executeUpdate("UPDATE shard_fence SET min_version = " + bumped.version()
							+ " WHERE tenant_id = '" + t + "'");
				}
				catch (SQLException ex) {
					throw new IllegalStateException(ex);
				}
			}
		});

		SessionView committed;
		try (TenantContext.Scope scope = TenantContext.bind(t)) {
			committed = app.orders().seeThenPlace("retried");
		}

		assertThat(bumpedVersion[0]).isGreaterThan(entry.version());
		assertThat(app.recorder().retries()).isEqualTo(1);
		assertThat(app.recorder().failures()).singleElement().satisfies(failure -> {
			FenceRejection rejection = FenceRejection.find(failure).orElseThrow();
			assertThat(rejection.reason()).isEqualTo("STALE");
			assertThat(rejection.seenVersion()).isEqualTo(entry.version());
			assertThat(rejection.requiredVersion()).isEqualTo(bumpedVersion[0]);
		});
		assertThat(app.orders().views()).containsExactly(new SessionView(t, entry.version(), "shard-1"),
				new SessionView(t, bumpedVersion[0], "shard-1"));
		assertThat(committed).isEqualTo(new SessionView(t, bumpedVersion[0], "shard-1"));
		assertThat(app.orders("shard-1", t, "retried")).isEqualTo(1);
		assertThat(rawBorrow().subList(1, 4)).containsExactly(null, null, null);
	}

}
