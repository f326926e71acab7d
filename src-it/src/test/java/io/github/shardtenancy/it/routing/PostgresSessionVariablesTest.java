package io.github.shardtenancy.it.routing;

import io.github.shardtenancy.retry.FenceRejection;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.RouterSettings;
import io.github.shardtenancy.TenantState;
import io.github.shardtenancy.internal.fence.FenceState;
import io.github.shardtenancy.internal.fence.ShardFence;
import io.github.shardtenancy.it.support.AppInstance;
import io.github.shardtenancy.testing.pg.PostgresCluster;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static io.github.shardtenancy.it.support.PgNotes.countNotes;
import static io.github.shardtenancy.it.support.PgNotes.insertNote;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

@DisplayName("PostgreSQL fence: session variables live exactly as long as their transaction")
class PostgresSessionVariablesTest {

	static PostgresCluster cluster;

	@BeforeAll
	static void servers() {
		cluster = PostgresCluster.shared();
	}

	@Test
	@DisplayName("with a pool of one connection, a raw borrow after a committed t1 and a rolled-back t2 sees neither tenant nor version")
	void rawBorrowSeesNoLeftovers() throws Exception {
		String t1 = PostgresCluster.tenant("vars-a");
		String t2 = PostgresCluster.tenant("vars-b");
		try (AppInstance app = AppInstance.plain(cluster, "vars", RouterSettings.defaults(), 1)) {
			DirectoryEntry e1 = app.admin.create(t1, "shard-1");
			DirectoryEntry e2 = app.admin.create(t2, "shard-1");

			String[] seenByT1 = app.inTransaction(t1, c -> {
				insertNote(c, t1, "kept");
				return settings(c);
			});
			assertThat(seenByT1).containsExactly(t1, String.valueOf(e1.version()), null);

			SQLException boom = catchThrowableOfType(SQLException.class, () -> app.inTransaction(t2, c -> {
				insertNote(c, t2, "rolled back");
				assertThat(settings(c)).containsExactly(t2, String.valueOf(e2.version()), null);
				throw new SQLException("the work failed");
			}));
			assertThat(boom.getMessage()).isEqualTo("the work failed");

			try (Connection raw = app.topology.shard("shard-1").dataSource().getConnection()) {
				assertThat(settings(raw)).containsExactly(null, null, null);
				SQLException rejected = catchThrowableOfType(SQLException.class, () -> insertNote(raw, t1, "raw"));
				assertThat(FenceRejection.find(rejected)).get()
					.satisfies(r -> assertThat(r.reason()).isEqualTo("NO_TENANT"));
			}
			assertThat(countNotes(app, "shard-1", t1)).isEqualTo(1);
			assertThat(countNotes(app, "shard-1", t2)).isZero();
		}
	}

	@Test
	@DisplayName("a transaction retried after a STALE rejection sees the new directory version in its first statement")
	void retriedTransactionSeesTheNewVersion() throws Exception {
		String tenant = PostgresCluster.tenant("vars-stale");
		try (AppInstance app = AppInstance.plain(cluster, "vars-app",
				RouterSettings.defaults().withSyncInterval(java.time.Duration.ofMinutes(10)), 1);
				AppInstance operator = AppInstance.plain(cluster, "vars-op", RouterSettings.defaults(), 1)) {
			DirectoryEntry created = app.admin.create(tenant, "shard-1");
			// Another instance bumps the entry (same shard, new epoch and version) and raises the fence's minimum.
			DirectoryEntry bumped = operator.directory.update(tenant, created.epoch(), "shard-1", TenantState.ACTIVE,
					null, "operator");
			ShardFence.set(operator.topology.shard("shard-1").dataSource(), "shard-1", tenant, FenceState.OWNED,
					bumped.version());
			assertThat(app.router.cached(tenant)).get().extracting(DirectoryEntry::version).isEqualTo(created.version());

			SQLException first = catchThrowableOfType(SQLException.class,
					() -> app.inTransaction(tenant, PostgresSessionVariablesTest::settings));
			FenceRejection rejection = FenceRejection.find(first).orElseThrow();
			assertThat(rejection.reason()).isEqualTo("STALE");
			assertThat(rejection.seenVersion()).isEqualTo(created.version());
			assertThat(rejection.requiredVersion()).isEqualTo(bumped.version());
			assertThat(first.getMessage()).contains("shard fence: tenant '" + tenant + "' rejected on shard 'shard-1': STALE");
			app.router.invalidate(rejection.tenantId());

			String[] retried = app.inTransaction(tenant, PostgresSessionVariablesTest::settings);
			assertThat(retried).containsExactly(tenant, String.valueOf(bumped.version()), null);
		}
	}

	/** tenant, version, role as the session sees them; '' and NULL both read as null. */
	static String[] settings(Connection c) throws SQLException {
		try (PreparedStatement ps = c.prepareStatement("SELECT nullif(current_setting('shard_tenancy.tenant', true), ''), "
				+ "nullif(current_setting('shard_tenancy.version', true), ''), "
				+ "nullif(current_setting('shard_tenancy.role', true), '')"); ResultSet rs = ps.executeQuery()) {
			rs.next();
			return new String[] { rs.getString(1), rs.getString(2), rs.getString(3) };
		}
	}

}
