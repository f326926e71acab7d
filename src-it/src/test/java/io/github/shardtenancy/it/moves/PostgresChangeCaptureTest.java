package io.github.shardtenancy.it.moves;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.TenantTable;
import io.github.shardtenancy.internal.move.TablePlan;
import io.github.shardtenancy.RouterSettings;
import io.github.shardtenancy.internal.move.ChangeCapture;
import io.github.shardtenancy.internal.topology.Topology;
import io.github.shardtenancy.it.support.AppInstance;
import io.github.shardtenancy.testing.pg.PostgresCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static io.github.shardtenancy.it.support.PgNotes.insertNote;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The online mover's change capture on PostgreSQL, decided once per transaction at its begin (under the tenant's fence
 * lock, which switching capture on or off takes exclusive) and applied by the fence's row trigger.
 */
@DisplayName("PostgreSQL change capture: decided at a transaction's begin, under the tenant's fence lock")
class PostgresChangeCaptureTest {

	static PostgresCluster cluster;

	static AppInstance app;

	@BeforeAll
	static void servers() {
		cluster = PostgresCluster.shared();
		app = AppInstance.plain(cluster, "capture-app", RouterSettings.defaults(), 3);
	}

	@AfterAll
	static void close() {
		app.close();
	}

	@Test
	@DisplayName("switching capture on waits for a transaction that only read (the fence lock is held from begin); its later write commits before capture, later transactions are captured, a neighbour's never")
	void captureOnWaitsForATransactionThatOnlyRead() throws Exception {
		String tenant = PostgresCluster.tenant("cap-late");
		String neighbour = PostgresCluster.tenant("cap-neighbour");
		app.admin.create(tenant, "shard-1");
		app.admin.create(neighbour, "shard-1");
		Topology.Shard shard = app.topology.shard("shard-1");
		List<TablePlan> tables = plan(tenant);
		CompletableFuture<Void> captureOn;
		try (TenantContext.Scope scope = TenantContext.bind(tenant); Connection writer = app.dataSource.getConnection()) {
			writer.setAutoCommit(false); // one transaction, committed below
			assertThat(countNotes(writer, tenant)).isZero(); // the transaction began (and read) before capture
			captureOn = CompletableFuture.runAsync(() -> {
				try {
					ChangeCapture.captureOn(shard, tenant, "move-cap-late", tables);
				}
				catch (SQLException ex) {
					throw new IllegalStateException(ex);
				}
			});
			await("capture on waits for the reader's fence lock").atMost(Duration.ofSeconds(30))
				.until(() -> captureOn.isDone()
						|| cluster.waitsForLock(cluster.shard("shard-1"), app.name + "-shard-1"));
			assertThat(captureOn).as("capture on waits for the transaction that only read").isNotDone();
			insertNote(writer, tenant, "written while capture on waits");
			writer.commit();
		}
		captureOn.get(30, TimeUnit.SECONDS);
		// Committed before capture took effect: in any snapshot the bulk copy takes after it.
		assertThat(changeLog(tenant)).isZero();
		app.inTransaction(tenant, c -> {
			insertNote(c, tenant, "after capture on");
			return null;
		});
		app.inTransaction(neighbour, c -> {
			insertNote(c, neighbour, "a neighbour's write is never captured");
			return null;
		});
		assertThat(changeLog(tenant)).isEqualTo(1);
		assertThat(changeLog(neighbour)).isZero();
		ChangeCapture.captureOff(shard, tenant);
		assertThat(changeLog(tenant)).isZero();
	}

	@Test
	@DisplayName("switching capture on waits for a transaction that already wrote; writes after it are captured")
	void captureOnWaitsForAWriterInFlight() throws Exception {
		String tenant = PostgresCluster.tenant("cap-inflight");
		app.admin.create(tenant, "shard-1");
		Topology.Shard shard = app.topology.shard("shard-1");
		List<TablePlan> tables = plan(tenant);
		CompletableFuture<Void> captureOn;
		try (TenantContext.Scope scope = TenantContext.bind(tenant); Connection writer = app.dataSource.getConnection()) {
			writer.setAutoCommit(false); // one transaction, committed below
			insertNote(writer, tenant, "first write, before capture");
			captureOn = CompletableFuture.runAsync(() -> {
				try {
					ChangeCapture.captureOn(shard, tenant, "move-cap-inflight", tables);
				}
				catch (SQLException ex) {
					throw new IllegalStateException(ex);
				}
			});
			await("capture on waits for the writer's fence lock").atMost(Duration.ofSeconds(30))
				.until(() -> captureOn.isDone()
						|| cluster.waitsForLock(cluster.shard("shard-1"), app.name + "-shard-1"));
			assertThat(captureOn).as("capture on waits for the writer holding the fence lock").isNotDone();
			insertNote(writer, tenant, "second write of the same transaction");
			writer.commit();
		}
		captureOn.get(30, TimeUnit.SECONDS);
		// Both rows committed before capture took effect: they are in any snapshot the bulk copy takes after it.
		assertThat(changeLog(tenant)).isZero();
		app.inTransaction(tenant, c -> {
			insertNote(c, tenant, "after capture on");
			return null;
		});
		assertThat(changeLog(tenant)).isEqualTo(1);
		ChangeCapture.captureOff(shard, tenant);
	}

	private static List<TablePlan> plan(String tenant) throws SQLException {
		try (Connection c = app.topology.shard("shard-1").dataSource().getConnection()) {
			return TablePlan.plan(c, "shard-1", tenant, List.of(new TenantTable("pg_note", "tenant_id")));
		}
	}

	private static long countNotes(Connection c, String tenant) throws SQLException {
		try (PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM pg_note WHERE tenant_id = ?")) {
			ps.setString(1, tenant);
			try (ResultSet rs = ps.executeQuery()) {
				rs.next();
				return rs.getLong(1);
			}
		}
	}

	private static long changeLog(String tenant) throws SQLException {
		try (Connection c = app.topology.shard("shard-1").dataSource().getConnection();
				PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM shard_change WHERE tenant_id = ?")) {
			ps.setString(1, tenant);
			try (ResultSet rs = ps.executeQuery()) {
				rs.next();
				return rs.getLong(1);
			}
		}
	}

}
