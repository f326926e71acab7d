package io.github.shardtenancy.it.routing;

import io.github.shardtenancy.retry.FenceRejection;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import io.github.shardtenancy.ShardUnavailableException;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.RouterSettings;
import io.github.shardtenancy.internal.fence.FenceState;
import io.github.shardtenancy.internal.fence.ShardFence;
import io.github.shardtenancy.it.support.AppInstance;
import io.github.shardtenancy.testing.pg.PostgresCluster;
import io.github.shardtenancy.testing.pg.PostgresServer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static io.github.shardtenancy.it.routing.PostgresSessionVariablesTest.settings;
import static io.github.shardtenancy.it.support.PgNotes.countNotes;
import static io.github.shardtenancy.it.support.PgNotes.insertNote;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * The fence begin sent with the transaction's first query (saving it a round trip of its own), on a real PostgreSQL
 * shard through the tenant-routing DataSource, which hands out the same connections as the Hibernate provider.
 */
@DisplayName("PostgreSQL: the fence begin travels with the first query")
class PostgresFirstQueryBeginTest {

	static PostgresCluster cluster;

	@BeforeAll
	static void servers() {
		cluster = PostgresCluster.shared();
	}

	@Test
	@DisplayName("the first query's own parameters, of several types, reach it unshifted and it sees tenant and version")
	void firstQueryParametersAndVariables() throws Exception {
		String tenant = PostgresCluster.tenant("fq-params");
		UUID id = UUID.randomUUID();
		try (AppInstance app = AppInstance.plain(cluster, "fq-params", RouterSettings.defaults(), 1)) {
			DirectoryEntry entry = app.admin.create(tenant, "shard-1");
			List<Object> row = app.inTransaction(tenant, c -> {
				try (PreparedStatement ps = c.prepareStatement("SELECT ?::text, ?::int, ?::uuid, ?::bigint, "
						+ "current_setting('shard_tenancy.tenant'), current_setting('shard_tenancy.version')")) {
					ps.setString(1, "a'b");
					ps.setInt(2, 42);
					ps.setObject(3, id);
					ps.setNull(4, java.sql.Types.BIGINT);
					try (ResultSet rs = ps.executeQuery()) {
						assertThat(rs.next()).isTrue();
						List<Object> values = new ArrayList<>();
						for (int i = 1; i <= 6; i++) {
							values.add(rs.getObject(i));
						}
						assertThat(rs.next()).isFalse();
						return values;
					}
				}
			});
			assertThat(row).containsExactly("a'b", 42, id, null, tenant, String.valueOf(entry.version()));
		}
	}

	@Test
	@DisplayName("a first query's statement is a plain wrapper of the tenant connection: parameters cleared and bound "
			+ "again, execute() answering with the query's rows, metadata of its own parameters, no batch")
	void firstQueryStatementAsJdbcSeesIt() throws Exception {
		String tenant = PostgresCluster.tenant("fq-wrapper");
		try (AppInstance app = AppInstance.plain(cluster, "fq-wrapper", RouterSettings.defaults(), 1)) {
			app.admin.create(tenant, "shard-1");
			String seen = app.inTransaction(tenant, c -> {
				try (PreparedStatement ps = c
					.prepareStatement("SELECT ?::text || current_setting('shard_tenancy.tenant')")) {
					assertThat(Proxy.isProxyClass(ps.getClass())).isFalse();
					assertThat(ps.getConnection()).isSameAs(c);
					assertThat(ps.getParameterMetaData().getParameterCount()).isOne();
					assertThat(ps.getParameterMetaData().getParameterType(1)).isEqualTo(Types.VARCHAR);
					ps.setString(1, "cleared ");
					ps.clearParameters();
					ps.setString(1, "tenant ");
					assertThatThrownBy(ps::addBatch).isInstanceOf(SQLFeatureNotSupportedException.class);
					assertThat(ps.execute()).isTrue();
					try (ResultSet rs = ps.getResultSet()) {
						assertThat(rs.next()).isTrue();
						return rs.getString(1);
					}
				}
			});
			assertThat(seen).isEqualTo("tenant " + tenant);
		}
	}

	@Test
	@DisplayName("a first query read in batches of a fetch size (a server-side cursor) returns every row")
	void firstQueryWithAFetchSize() throws Exception {
		String tenant = PostgresCluster.tenant("fq-fetch");
		try (AppInstance app = AppInstance.plain(cluster, "fq-fetch", RouterSettings.defaults(), 1)) {
			app.admin.create(tenant, "shard-1");
			List<Integer> rows = app.inTransaction(tenant, c -> {
				try (PreparedStatement ps = c.prepareStatement("SELECT g FROM generate_series(1, ?) AS g ORDER BY g")) {
					ps.setFetchSize(3);
					ps.setInt(1, 10);
					List<Integer> values = new ArrayList<>();
					try (ResultSet rs = ps.executeQuery()) {
						while (rs.next()) {
							values.add(rs.getInt(1));
						}
					}
					return values;
				}
			});
			assertThat(rows).containsExactly(1, 2, 3, 4, 5, 6, 7, 8, 9, 10);
		}
	}

	@Test
	@DisplayName("a write prepared and run before an earlier-prepared first query still runs after the begin")
	void writeBeforeThePreparedQueryIsFenced() throws Exception {
		String tenant = PostgresCluster.tenant("fq-order");
		try (AppInstance app = AppInstance.plain(cluster, "fq-order", RouterSettings.defaults(), 1)) {
			app.admin.create(tenant, "shard-1");
			long seen = app.inTransaction(tenant, c -> {
				try (PreparedStatement count = c
					.prepareStatement("SELECT count(*) FROM pg_note WHERE tenant_id = current_setting('shard_tenancy.tenant')")) {
					insertNote(c, tenant, "written first");
					try (ResultSet rs = count.executeQuery()) {
						rs.next();
						return rs.getLong(1);
					}
				}
			});
			assertThat(seen).isEqualTo(1);
			assertThat(countNotes(app, "shard-1", tenant)).isEqualTo(1);
		}
	}

	@Test
	@DisplayName("a stale route is rejected by the first query, which reads nothing, and by a write-first transaction")
	void staleRouteIsRejectedAtTheFirstStatement() throws Exception {
		String tenant = PostgresCluster.tenant("fq-stale");
		try (AppInstance app = AppInstance.plain(cluster, "fq-stale",
				RouterSettings.defaults().withSyncInterval(java.time.Duration.ofMinutes(10)), 1)) {
			DirectoryEntry entry = app.admin.create(tenant, "shard-1");
			ShardFence.set(app.topology.shard("shard-1").dataSource(), "shard-1", tenant, FenceState.OWNED,
					entry.version() + 1);
			List<String> read = new ArrayList<>();
			SQLException onQuery = catchThrowableOfType(SQLException.class, () -> app.inTransaction(tenant, c -> {
				try (PreparedStatement ps = c.prepareStatement("SELECT text FROM pg_note WHERE tenant_id = ?")) {
					ps.setString(1, tenant);
					try (ResultSet rs = ps.executeQuery()) {
						while (rs.next()) {
							read.add(rs.getString(1));
						}
					}
				}
				return null;
			}));
			assertThat(FenceRejection.find(onQuery)).get().satisfies(r -> {
				assertThat(r.reason()).isEqualTo("STALE");
				assertThat(r.seenVersion()).isEqualTo(entry.version());
			});
			assertThat(read).isEmpty();
			SQLException onWrite = catchThrowableOfType(SQLException.class,
					() -> app.inTransaction(tenant, c -> {
						insertNote(c, tenant, "stale");
						return null;
					}));
			assertThat(FenceRejection.find(onWrite)).get().extracting(FenceRejection::reason).isEqualTo("STALE");
			assertThat(countNotes(app, "shard-1", tenant)).isZero();
		}
	}

	@Test
	@DisplayName("after a commit, the next transaction on the same connection begins again")
	void nextTransactionOnTheSameConnectionBeginsAgain() throws Exception {
		String tenant = PostgresCluster.tenant("fq-again");
		try (AppInstance app = AppInstance.plain(cluster, "fq-again", RouterSettings.defaults(), 1)) {
			DirectoryEntry entry = app.admin.create(tenant, "shard-1");
			String[] second = app.inTransaction(tenant, c -> {
				insertNote(c, tenant, "first transaction");
				c.commit();
				String[] seen = settings(c);
				insertNote(c, tenant, "second transaction");
				return seen;
			});
			assertThat(second).containsExactly(tenant, String.valueOf(entry.version()), null);
			assertThat(countNotes(app, "shard-1", tenant)).isEqualTo(2);
		}
	}

	@Test
	@DisplayName("a connection cut after the borrow and before the first query surfaces as shard unavailable (nothing ran)")
	void connectionCutBeforeTheFirstQueryIsShardUnavailable() throws Exception {
		String tenant = PostgresCluster.tenant("fq-cut");
		try (AppInstance app = AppInstance.plain(cluster, "fq-cut", RouterSettings.defaults(), 1)) {
			app.admin.create(tenant, "shard-1");
			int pid = app.inTransaction(tenant, c -> {
				try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
					rs.next();
					return rs.getInt(1);
				}
			});
			// A pool of one: the next transaction borrows the same server process, which is terminated after the borrow
			// (the begin has not been sent yet) and before the transaction's first query.
			SQLException failure;
			try (io.github.shardtenancy.TenantContext.Scope scope = io.github.shardtenancy.TenantContext.bind(tenant);
					Connection c = app.dataSource.getConnection();
					PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM pg_note WHERE tenant_id = ?")) {
				terminate(pid);
				ps.setString(1, tenant);
				failure = catchThrowableOfType(SQLException.class, ps::executeQuery);
			}
			Throwable cause = failure;
			while (cause != null && !(cause instanceof ShardUnavailableException)) {
				cause = cause.getCause();
			}
			assertThat(cause).as("cause chain of %s", failure).isInstanceOf(ShardUnavailableException.class);
			assertThat(((ShardUnavailableException) cause).shardId()).isEqualTo("shard-1");
			assertThat(((ShardUnavailableException) cause).tenantId()).isEqualTo(tenant);
			// The pool replaced the broken connection: the next transaction runs.
			String after = app.inTransaction(tenant, c -> settings(c)[0]);
			assertThat(after).isEqualTo(tenant);
		}
	}

	private static void terminate(int pid) throws SQLException {
		PostgresServer shard = cluster.shard("shard-1");
		try (Connection admin = java.sql.DriverManager.getConnection(shard.jdbcUrl(), shard.user(), shard.password());
				PreparedStatement kill = admin.prepareStatement("SELECT pg_terminate_backend(?, 5000)")) {
			kill.setInt(1, pid);
			kill.execute();
		}
	}

}
