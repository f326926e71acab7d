package io.github.shardtenancy.it.moves;

import java.util.stream.IntStream;

import io.github.shardtenancy.it.support.AppInstance;
import io.github.shardtenancy.testing.TenantWriter;
import io.github.shardtenancy.testing.pg.PostgresCluster;
import io.github.shardtenancy.testing.pg.PostgresServer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.MoveException;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.TenantState;
import io.github.shardtenancy.TenantTable;
import io.github.shardtenancy.TenantMover;
import io.github.shardtenancy.internal.fence.FenceState;
import io.github.shardtenancy.internal.fence.ShardFence;
import io.github.shardtenancy.internal.move.Mover;
import io.github.shardtenancy.MoveInProgressException;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.MoveStatus;
import io.github.shardtenancy.MoveStep;
import io.github.shardtenancy.RouterSettings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.awaitility.Awaitility.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The online mover on real PostgreSQL shards: the PL/pgSQL fence and change capture, application writers on one
 * instance (routing through its own router, learning of the move only from fence rejections) and the mover on another
 * instance with pools of its own, whose connections a test can cut.
 */
@DisplayName("Online mover on PostgreSQL")
class PostgresOnlineMoverTest {

	/** What a test hook throws to stop a mover as a crash would: not a RuntimeException, so nothing is undone. */
	static final class Killed extends Error {

		Killed(MoveStep step) {
			super("mover killed after step " + step);
		}

	}

	static PostgresCluster cluster;

	AppInstance app;

	AppInstance moverInstance;

	String tenant;

	final List<TenantWriter> tenantWriters = new ArrayList<>();

	private final ExecutorService threads = Executors.newCachedThreadPool();

	private final AtomicBoolean stop = new AtomicBoolean();

	private final List<Future<TenantWriter>> running = new ArrayList<>();

	@BeforeAll
	static void servers() {
		cluster = PostgresMoveFixture.cluster();
	}

	@BeforeEach
	void instances() throws Exception {
		this.app = AppInstance.plain(cluster, "move-app", RouterSettings.defaults(), 20);
		this.moverInstance = AppInstance.plain(cluster, "mover-" + PostgresCluster.tenant("i"), RouterSettings.defaults(), 4);
		this.tenant = PostgresCluster.tenant("moving");
		this.app.admin.create(this.tenant, "shard-1");
		this.tenantWriters.add(PostgresMoveFixture.writer(this.app, this.tenant, this.stop).write(100));
	}

	@AfterEach
	void close() throws Exception {
		this.stop.set(true);
		this.threads.shutdown();
		this.threads.awaitTermination(60, TimeUnit.SECONDS);
		this.app.close();
		this.moverInstance.close();
	}

	private List<TenantWriter> startWriters(String tenantId, int count) {
		List<TenantWriter> writers = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			TenantWriter writer = PostgresMoveFixture.writer(this.app, tenantId, this.stop);
			writers.add(writer);
			this.running.add(this.threads.submit(writer));
		}
		return writers;
	}

	/** Waits until every writer committed a few more writes, so that they overlap what follows. */
	static void awaitProgress(List<TenantWriter> writers) {
		List<Long> before = writers.stream().map(TenantWriter::ops).toList();
		await("every writer commits 3 more writes").atMost(Duration.ofSeconds(30))
			.until(() -> IntStream.range(0, writers.size()).allMatch(i -> writers.get(i).ops() >= before.get(i) + 3));
	}

	/** Stops the writers and rethrows whatever one of them failed with: every caller must return normally. */
	private void stopWriters() throws Exception {
		this.stop.set(true);
		for (Future<TenantWriter> writer : this.running) {
			writer.get(60, TimeUnit.SECONDS);
		}
	}

	private List<TenantWriter> allTenantWriters(List<TenantWriter> started) {
		List<TenantWriter> all = new ArrayList<>(this.tenantWriters);
		all.addAll(started);
		return all;
	}

	/** The owner holds exactly what the writers committed (nothing lost, nothing duplicated), the other shard none. */
	private void assertTenantLivesOnlyOn(String owner, String other, List<TenantWriter> writers) {
		assertThat(PostgresMoveFixture.orders(this.app, owner, this.tenant)).as("orders on the owner " + owner)
			.isEqualTo(TenantWriter.committedOrders(writers));
		assertThat(PostgresMoveFixture.lines(this.app, owner, this.tenant)).as("order lines on the owner " + owner)
			.isEqualTo(TenantWriter.committedLines(writers));
		assertThat(PostgresMoveFixture.rows(this.app, other, this.tenant)).as("rows left on " + other).isZero();
		DirectoryEntry entry = this.app.directory.find(this.tenant).orElseThrow();
		assertThat(entry.shardId()).isEqualTo(owner);
		assertThat(entry.state()).isEqualTo(TenantState.ACTIVE);
		assertThat(entry.targetShardId()).isNull();
		assertThat(PostgresMoveFixture.changeLog(this.app, "shard-1", this.tenant)).as("change log and capture")
			.isZero();
		assertThat(PostgresMoveFixture.changeLog(this.app, "shard-2", this.tenant)).as("change log and capture")
			.isZero();
	}

	private FenceState fence(String shardId) {
		return ShardFence.get(this.app.topology.shard(shardId).dataSource(), shardId, this.tenant).orElseThrow().state();
	}

	/**
	 * Small batches, and the source cleaned one second after the flip: a writer that began its transaction on the
	 * source during the freeze (a FROZEN fence admits reads) may run its UPDATE after the flip, and must still find
	 * the rows there to be rejected and retried rather than update nothing.
	 */
	static MoveSettings smallBatches() {
		return MoveSettings.defaults()
			.withBatchSize(100)
			.withCatchUpLagThreshold(10)
			.withMaxCatchUpRounds(5)
			.withCleanDelay(Duration.ofSeconds(1));
	}

	/** Resumes a flipped move until its clean delay has passed and it has cleaned the source. */
	static MoveStatus finish(Mover mover, String moveId) {
		return await("the move " + moveId + " cleans the source").atMost(Duration.ofSeconds(60))
			.pollInSameThread()
			.pollDelay(Duration.ZERO)
			.until(() -> mover.resume(moveId), status -> status.step() != MoveStep.FLIPPED);
	}

	/** A mover on the mover instance that crashes after {@code step}, first cutting all of its connections. */
	private Mover doomedMover(MoveStep killAfter) {
		return PostgresMoveFixture.mover(this.moverInstance).withHook((id, step) -> {
			if (step == killAfter) {
				int cut = cutConnections(this.moverInstance.name);
				assertThat(cut).as("connections of the mover cut").isPositive();
				throw new Killed(step);
			}
		});
	}

	/**
	 * Terminates, on the directory and every shard, the server backends of an instance's pools (recognised by their
	 * {@code application_name}, which is the pool name).
	 * @return backends terminated
	 */
	static int cutConnections(String instanceName) {
		return cutConnections(cluster, instanceName);
	}

	/**
	 * As {@link #cutConnections(String)}, on a given cluster.
	 * @return backends terminated
	 */
	static int cutConnections(PostgresCluster cluster, String instanceName) {
		int cut = 0;
		for (PostgresServer server : cluster.all()) {
			try (HikariDataSource admin = cluster.pool(server, 1, "it-connection-cutter");
					Connection c = admin.getConnection();
					PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FILTER (WHERE pg_terminate_backend(pid)) "
							+ "FROM pg_stat_activity WHERE application_name LIKE ? AND pid <> pg_backend_pid()")) {
				ps.setString(1, instanceName + "-%");
				try (ResultSet rs = ps.executeQuery()) {
					rs.next();
					cut += rs.getInt(1);
				}
			}
			catch (SQLException ex) {
				throw new IllegalStateException("Cannot cut connections on " + server + ": " + ex.getMessage(), ex);
			}
		}
		return cut;
	}

	@Nested
	@DisplayName("under load")
	class UnderLoad {

		@Test
		@DisplayName("a move under 8 writers of the tenant and 8 of its neighbours: every caller returns normally, "
				+ "0 rows lost or duplicated on the target, 0 left on the source after clean")
		void moveUnderConcurrentWritersLosesNothing() throws Exception {
			String left = PostgresCluster.tenant("left");
			String right = PostgresCluster.tenant("right");
			PostgresOnlineMoverTest.this.app.admin.create(left, "shard-1");
			PostgresOnlineMoverTest.this.app.admin.create(right, "shard-2");
			List<TenantWriter> moving = startWriters(PostgresOnlineMoverTest.this.tenant, 8);
			List<TenantWriter> leftWriters = startWriters(left, 4);
			List<TenantWriter> rightWriters = startWriters(right, 4);
			awaitProgress(moving);
			List<String> copied = new java.util.concurrent.CopyOnWriteArrayList<>();
			Mover plain = PostgresMoveFixture.mover(PostgresOnlineMoverTest.this.moverInstance);
			Mover mover = plain.withHook((id, step) -> {
				if (step == MoveStep.COPIED) {
					copied.add(plain.status(id).stepData());
				}
			});

			String moveId = mover.moveAndWait(PostgresOnlineMoverTest.this.tenant, "shard-2", smallBatches()).moveId();

			MoveStatus done = finish(mover, moveId);
			assertThat(done.step()).isEqualTo(MoveStep.DONE);
			assertThat(copied).as("the bulk copy between PostgreSQL shards used COPY")
				.singleElement()
				.asString()
				.endsWith("via PostgresBulkCopier");
			awaitProgress(moving);
			awaitProgress(leftWriters);
			stopWriters();
			assertTenantLivesOnlyOn("shard-2", "shard-1", allTenantWriters(moving));
			assertThat(moving.stream().mapToLong(w -> w.rejections()).sum()).as("rejections of the moving tenant")
				.isPositive();
			assertThat(PostgresMoveFixture.orders(PostgresOnlineMoverTest.this.app, "shard-1", left))
				.isEqualTo(TenantWriter.committedOrders(leftWriters));
			assertThat(PostgresMoveFixture.lines(PostgresOnlineMoverTest.this.app, "shard-1", left))
				.isEqualTo(TenantWriter.committedLines(leftWriters));
			assertThat(PostgresMoveFixture.orders(PostgresOnlineMoverTest.this.app, "shard-2", right))
				.isEqualTo(TenantWriter.committedOrders(rightWriters));
			assertThat(PostgresMoveFixture.lines(PostgresOnlineMoverTest.this.app, "shard-2", right))
				.isEqualTo(TenantWriter.committedLines(rightWriters));
			assertThat(leftWriters).allSatisfy(w -> assertThat(w.rejections()).as("neighbour rejections").isZero());
			assertThat(rightWriters).allSatisfy(w -> assertThat(w.rejections()).as("neighbour rejections").isZero());
			System.out.printf("online move under load (PostgreSQL): freeze window %d ms, %d rows moved, "
					+ "writer ops %d, retried rejections %d%n", done.freezeWindow().orElseThrow().toMillis(),
					PostgresMoveFixture.rows(PostgresOnlineMoverTest.this.app, "shard-2",
							PostgresOnlineMoverTest.this.tenant),
					moving.stream().mapToLong(w -> w.ops()).sum(),
					moving.stream().mapToLong(w -> w.rejections()).sum());
		}

	}

	@Nested
	@DisplayName("unique keys other than the primary key")
	class UniqueKeys {

		@Test
		@DisplayName("unique values freed by a deleted row and taken by a new row, or moved between rows by updates, in "
				+ "one catch-up round reach the target (deletes first, refused writes retried row by row)")
		void uniqueValuesReusedInOneRoundAreApplied() throws Exception {
			AppInstance app = PostgresOnlineMoverTest.this.app;
			String tenant = PostgresOnlineMoverTest.this.tenant;
			long base = Math.abs(tenant.hashCode() % 1_000_000) * 10L;
			for (String shardId : List.of("shard-1", "shard-2")) {
				try (Connection c = app.topology.shard(shardId).dataSource().getConnection()) {
					app.topology.shard(shardId).dialect().installWriteCheck(c, "pg_move_coupon", "tenant_id");
					app.topology.shard(shardId).dialect().installChangeCapture(c, "pg_move_coupon", "tenant_id");
				}
			}
			String insert = "INSERT INTO pg_move_coupon (id, tenant_id, code) VALUES (%d, '" + tenant + "', '%s')";
			asTenant(app, tenant, String.format(insert, base + 1, "SPRING"), String.format(insert, base + 2, "SUMMER"),
					String.format(insert, base + 3, "AUTUMN"));
			List<TenantTable> tables = new ArrayList<>(PostgresMoveFixture.TABLES);
			tables.add(new TenantTable("pg_move_coupon", "tenant_id"));
			Mover mover = new Mover(app.directory, app.router, app.topology, tables, "online@unique", app.moveExecutor)
				.withHook((id, step) -> {
					if (step == MoveStep.COPIED) {
						asTenant(app, tenant, "DELETE FROM pg_move_coupon WHERE id = " + (base + 1),
								String.format(insert, base + 4, "SPRING"),
								"UPDATE pg_move_coupon SET label = 'touched' WHERE id = " + (base + 3),
								"UPDATE pg_move_coupon SET code = 'SUMMER-2025' WHERE id = " + (base + 2),
								"UPDATE pg_move_coupon SET code = 'SUMMER' WHERE id = " + (base + 3));
					}
				});

			String moveId = mover.moveAndWait(tenant, "shard-2", MoveSettings.defaults()).moveId();

			assertThat(mover.status(moveId).step()).isEqualTo(MoveStep.DONE);
			assertThat(coupons(app, "shard-2", tenant)).isEqualTo(java.util.Map.of(base + 2, "SUMMER-2025", base + 3,
					"SUMMER", base + 4, "SPRING"));
			assertThat(coupons(app, "shard-1", tenant)).isEmpty();
		}

		/** Runs each statement in its own transaction of the tenant, routed and fenced; each must change one row. */
		private static void asTenant(AppInstance app, String tenant, String... statements) {
			for (String sql : statements) {
				try {
					int changed = app.inTransaction(tenant, c -> {
						try (PreparedStatement ps = c.prepareStatement(sql)) {
							return ps.executeUpdate();
						}
					});
					assertThat(changed).as(sql).isEqualTo(1);
				}
				catch (SQLException ex) {
					throw new IllegalStateException(sql, ex);
				}
			}
		}

		private static java.util.Map<Long, String> coupons(AppInstance app, String shardId, String tenant)
				throws SQLException {
			java.util.Map<Long, String> coupons = new java.util.TreeMap<>();
			try (Connection c = app.topology.shard(shardId).dataSource().getConnection();
					PreparedStatement ps = c.prepareStatement("SELECT id, code FROM pg_move_coupon WHERE tenant_id = ?")) {
				ps.setString(1, tenant);
				try (ResultSet rs = ps.executeQuery()) {
					while (rs.next()) {
						coupons.put(rs.getLong(1), rs.getString(2));
					}
				}
			}
			return coupons;
		}

	}

	@Nested
	@DisplayName("crash safety")
	class CrashSafety {

		@ParameterizedTest(name = "killed after {0}")
		@EnumSource(value = MoveStep.class, names = { "PLANNED", "MARKED", "COPIED", "CAUGHT_UP", "FROZEN",
				"FINAL_CAUGHT_UP", "VERIFIED", "FLIPPED" })
		@DisplayName("a mover killed after a step, its connections cut, is resumed by a new mover instance and the "
				+ "move completes, verified")
		void killedMoverIsResumedByANewInstance(MoveStep killAfter) throws Exception {
			killAndResume(killAfter, smallBatches());
		}

		@ParameterizedTest(name = "killed after {0}")
		@EnumSource(value = MoveStep.class, names = { "PLANNED", "FROZEN", "COPIED", "VERIFIED", "FLIPPED" })
		@DisplayName("without capture (stop-the-world), a mover killed after a step, its connections cut, is resumed by "
				+ "a new mover instance and the move completes, verified")
		void killedStopTheWorldMoverIsResumedByANewInstance(MoveStep killAfter) throws Exception {
			killAndResume(killAfter, smallBatches().withCapture(false));
		}

		private void killAndResume(MoveStep killAfter, MoveSettings settings) throws Exception {
			List<TenantWriter> writers = startWriters(PostgresOnlineMoverTest.this.tenant, 2);
			awaitProgress(writers);
			Mover doomed = doomedMover(killAfter);
			assertThatThrownBy(() -> doomed.moveAndWait(PostgresOnlineMoverTest.this.tenant, "shard-2", settings))
				.isInstanceOf(Killed.class);
			PostgresOnlineMoverTest.this.moverInstance.close();
			MoveStatus stopped = PostgresMoveFixture.mover(PostgresOnlineMoverTest.this.app)
				.findActive(PostgresOnlineMoverTest.this.tenant)
				.orElseThrow();
			assertThat(stopped.step()).isEqualTo(killAfter);
			assertThat(stopped.owner()).isEqualTo(doomed.owner());

			try (AppInstance successorInstance = AppInstance.plain(cluster, "mover-successor",
					RouterSettings.defaults(), 4)) {
				Mover successor = PostgresMoveFixture.mover(successorInstance).withLease(Duration.ZERO);
				MoveStatus done = finish(successor, stopped.moveId());

				assertThat(done.step()).isEqualTo(MoveStep.DONE);
				assertThat(done.freezeWindow()).isPresent();
				assertThat(successor.findActive(PostgresOnlineMoverTest.this.tenant)).isEmpty();
			}
			awaitProgress(writers);
			stopWriters();
			assertTenantLivesOnlyOn("shard-2", "shard-1", allTenantWriters(writers));
			assertThat(fence("shard-1")).isEqualTo(FenceState.MOVED);
			assertThat(fence("shard-2")).isEqualTo(FenceState.OWNED);
		}

		@ParameterizedTest(name = "aborted after {0}")
		@EnumSource(value = MoveStep.class, names = { "PLANNED", "MARKED", "COPIED", "CAUGHT_UP", "FROZEN",
				"FINAL_CAUGHT_UP", "VERIFIED" })
		@DisplayName("an abort before the flip leaves the tenant ACTIVE on the source with nothing lost and no rows "
				+ "on the target")
		void abortBeforeFlipRestoresTheSource(MoveStep killAfter) throws Exception {
			killAndAbort(killAfter, smallBatches());
		}

		@ParameterizedTest(name = "aborted after {0}")
		@EnumSource(value = MoveStep.class, names = { "PLANNED", "FROZEN", "COPIED", "VERIFIED" })
		@DisplayName("without capture (stop-the-world), an abort before the flip leaves the tenant ACTIVE on the source "
				+ "with nothing lost and no rows on the target")
		void stopTheWorldAbortBeforeFlipRestoresTheSource(MoveStep killAfter) throws Exception {
			killAndAbort(killAfter, smallBatches().withCapture(false));
		}

		private void killAndAbort(MoveStep killAfter, MoveSettings settings) throws Exception {
			List<TenantWriter> writers = startWriters(PostgresOnlineMoverTest.this.tenant, 2);
			awaitProgress(writers);
			Mover doomed = doomedMover(killAfter);
			assertThatThrownBy(() -> doomed.moveAndWait(PostgresOnlineMoverTest.this.tenant, "shard-2", settings))
				.isInstanceOf(Killed.class);
			Mover operator = PostgresMoveFixture.mover(PostgresOnlineMoverTest.this.app).withLease(Duration.ZERO);
			String moveId = operator.findActive(PostgresOnlineMoverTest.this.tenant).orElseThrow().moveId();

			assertThat(operator.abort(moveId).step()).isEqualTo(MoveStep.ABORTED);

			awaitProgress(writers);
			stopWriters();
			assertTenantLivesOnlyOn("shard-1", "shard-2", allTenantWriters(writers));
			assertThat(fence("shard-1")).isEqualTo(FenceState.OWNED);
			assertThat(operator.findActive(PostgresOnlineMoverTest.this.tenant)).isEmpty();
		}

	}

	@Nested
	@DisplayName("refusals")
	class Refusals {

		@Test
		@DisplayName("a second move of a moving tenant is refused with MoveInProgressException by another mover "
				+ "instance, and the basic mover refuses it too")
		void secondMoveIsRefused() {
			Mover first = doomedMover(MoveStep.MARKED);
			assertThatThrownBy(() -> first.moveAndWait(PostgresOnlineMoverTest.this.tenant, "shard-2", smallBatches()))
				.isInstanceOf(Killed.class);
			Mover other = PostgresMoveFixture.mover(PostgresOnlineMoverTest.this.app);
			String moveId = other.findActive(PostgresOnlineMoverTest.this.tenant).orElseThrow().moveId();

			assertThatThrownBy(() -> other.moveAndWait(PostgresOnlineMoverTest.this.tenant, "shard-3", smallBatches()))
				.isInstanceOfSatisfying(MoveInProgressException.class, ex -> {
					assertThat(ex.moveId()).isEqualTo(moveId);
					assertThat(ex.tenantId()).isEqualTo(PostgresOnlineMoverTest.this.tenant);
				});
			assertThatThrownBy(() -> other.resume(moveId)).isInstanceOf(MoveInProgressException.class)
				.hasMessageContaining(first.owner());
			assertThatThrownBy(() -> basicMover().moveAndWait(PostgresOnlineMoverTest.this.tenant, "shard-3",
					MoveSettings.stopTheWorld()))
				.isInstanceOf(MoveInProgressException.class)
				.hasMessageContaining(moveId);
			assertThat(other.withLease(Duration.ZERO).abort(moveId).step()).isEqualTo(MoveStep.ABORTED);
			assertThat(PostgresMoveFixture.rows(PostgresOnlineMoverTest.this.app, "shard-2",
					PostgresOnlineMoverTest.this.tenant)).isZero();
		}

		@Test
		@DisplayName("a basic move of a tenant whose online move has flipped but not cleaned is refused with "
				+ "MoveInProgressException; after the clean it is allowed")
		void basicMoveOfAFlippedButUncleanedTenantIsRefused() {
			Mover mover = PostgresMoveFixture.mover(PostgresOnlineMoverTest.this.moverInstance);
			String moveId = mover.moveAndWait(PostgresOnlineMoverTest.this.tenant, "shard-2",
					smallBatches().withCleanDelay(Duration.ofHours(1))).moveId();
			assertThat(mover.status(moveId).step()).isEqualTo(MoveStep.FLIPPED);
			long rows = PostgresMoveFixture.rows(PostgresOnlineMoverTest.this.app, "shard-2",
					PostgresOnlineMoverTest.this.tenant);

			assertThatThrownBy(() -> basicMover().moveAndWait(PostgresOnlineMoverTest.this.tenant, "shard-1",
					MoveSettings.stopTheWorld()))
				.isInstanceOfSatisfying(MoveInProgressException.class,
						ex -> assertThat(ex.moveId()).isEqualTo(moveId))
				.hasMessageContaining(PostgresOnlineMoverTest.this.tenant)
				.hasMessageContaining("FLIPPED");
			assertThat(PostgresMoveFixture.rows(PostgresOnlineMoverTest.this.app, "shard-1",
					PostgresOnlineMoverTest.this.tenant)).as("source rows kept until the clean").isEqualTo(rows);

			assertThat(mover.clean(moveId).step()).isEqualTo(MoveStep.DONE);
			basicMover().moveAndWait(PostgresOnlineMoverTest.this.tenant, "shard-1",
					MoveSettings.stopTheWorld());
			assertTenantLivesOnlyOn("shard-1", "shard-2", PostgresOnlineMoverTest.this.tenantWriters);
		}

		@Test
		@DisplayName("a table without a tenant column makes the move refuse to start, naming the table")
		void tableWithoutTenantColumnIsRefused() {
			DirectoryEntry before = PostgresOnlineMoverTest.this.app.directory
				.find(PostgresOnlineMoverTest.this.tenant)
				.orElseThrow();
			List<TenantTable> tables = new ArrayList<>(PostgresMoveFixture.TABLES);
			tables.add(new TenantTable("pg_move_setting", "tenant_id"));
			AppInstance instance = PostgresOnlineMoverTest.this.moverInstance;
			Mover mover = new Mover(instance.directory, instance.router, instance.topology, tables,
					"online@test", instance.moveExecutor);

			assertThatThrownBy(() -> mover.moveAndWait(PostgresOnlineMoverTest.this.tenant, "shard-2", smallBatches()))
				.isInstanceOf(MoveException.class)
				.hasMessageContaining("pg_move_setting")
				.hasMessageContaining("tenant_id");
			assertThat(PostgresOnlineMoverTest.this.app.directory.find(PostgresOnlineMoverTest.this.tenant))
				.contains(before);
			assertThat(mover.findActive(PostgresOnlineMoverTest.this.tenant)).isEmpty();
			assertThat(PostgresMoveFixture.changeLog(PostgresOnlineMoverTest.this.app, "shard-1",
					PostgresOnlineMoverTest.this.tenant)).isZero();
		}

		/** A mover on the application instance (whose connections no test cuts), moving stop-the-world. */
		private Mover basicMover() {
			return PostgresMoveFixture.mover(PostgresOnlineMoverTest.this.app);
		}

	}

}
