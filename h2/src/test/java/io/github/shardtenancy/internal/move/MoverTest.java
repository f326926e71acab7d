package io.github.shardtenancy.internal.move;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.shardtenancy.testing.TenantWriter;
import io.github.shardtenancy.MoveException;
import io.github.shardtenancy.TenantTable;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.TenantState;
import io.github.shardtenancy.internal.fence.FenceState;
import io.github.shardtenancy.internal.fence.ShardFence;
import io.github.shardtenancy.MoveInProgressException;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.MoveStatus;
import io.github.shardtenancy.MoveStep;
import io.github.shardtenancy.internal.topology.Topology;
import io.github.shardtenancy.spi.ShardTenancyObserver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The online mover on H2 shards, with application writers running through the connection provider and the fence.
 */
class MoverTest {

	private static final String TENANT = "acme";

	/** What a test hook throws to stop a mover as a crash would: not a RuntimeException, so nothing is undone. */
	static final class Killed extends Error {

		Killed(MoveStep step) {
			super("mover killed after step " + step);
		}

	}

	private MoveFixture fixture;

	private ExecutorService pool;

	private final AtomicBoolean stop = new AtomicBoolean();

	private final List<TenantWriter> acmeWriters = new ArrayList<>();

	private final List<Future<TenantWriter>> running = new ArrayList<>();

	@BeforeEach
	void setUp() throws Exception {
		this.fixture = new MoveFixture(2, 24);
		this.pool = Executors.newCachedThreadPool();
		this.fixture.admin().create(TENANT, "shard-1");
		TenantWriter seed = MoveFixture.writer(this.fixture, TENANT, this.stop);
		seed.write(200);
		this.acmeWriters.add(seed);
	}

	@AfterEach
	void tearDown() throws Exception {
		this.stop.set(true);
		this.pool.shutdown();
		this.pool.awaitTermination(60, TimeUnit.SECONDS);
		this.fixture.close();
	}

	private List<TenantWriter> startWriters(String tenantId, int count) {
		List<TenantWriter> writers = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			TenantWriter writer = MoveFixture.writer(this.fixture, tenantId, this.stop);
			writers.add(writer);
			this.running.add(this.pool.submit(writer));
		}
		return writers;
	}

	/** Waits until every writer committed a few writes, so that they overlap what follows. */
	private static void awaitProgress(List<TenantWriter> writers) {
		await("every writer commits 3 writes").atMost(Duration.ofSeconds(30))
			.until(() -> writers.stream().allMatch(w -> w.ops() >= 3));
	}

	/** Stops the writers and rethrows whatever one of them failed with: every caller must return normally. */
	private void stopWriters() throws Exception {
		this.stop.set(true);
		for (Future<TenantWriter> writer : this.running) {
			writer.get(60, TimeUnit.SECONDS);
		}
	}

	private void assertTenantLivesOnlyOn(String owner, String other, List<TenantWriter> writers) {
		Map<Long, Integer> expectedOrders = TenantWriter.committedOrders(writers);
		Map<String, String> expectedLines = TenantWriter.committedLines(writers);
		assertThat(this.fixture.orders(owner, TENANT)).as("orders on the owner").isEqualTo(expectedOrders);
		assertThat(this.fixture.lines(owner, TENANT)).as("order lines on the owner").isEqualTo(expectedLines);
		assertThat(this.fixture.rows(other, TENANT)).as("rows left on " + other).isZero();
		DirectoryEntry entry = this.fixture.directory().find(TENANT).orElseThrow();
		assertThat(entry.shardId()).isEqualTo(owner);
		assertThat(entry.state()).isEqualTo(TenantState.ACTIVE);
		assertThat(entry.targetShardId()).isNull();
	}

	private static MoveSettings smallBatches() {
		return MoveSettings.defaults().withBatchSize(50).withCatchUpLagThreshold(10).withMaxCatchUpRounds(5);
	}

	@Nested
	@DisplayName("under load")
	class UnderLoad {

		@Test
		@DisplayName("three moves under 8 writers of the tenant and 8 of its neighbours lose and duplicate nothing")
		void movesUnderConcurrentWritersLoseNothing() throws Exception {
			MoverTest.this.fixture.admin().create("left-neighbour", "shard-1");
			MoverTest.this.fixture.admin().create("right-neighbour", "shard-2");
			List<TenantWriter> acme = startWriters(TENANT, 8);
			List<TenantWriter> left = startWriters("left-neighbour", 4);
			List<TenantWriter> right = startWriters("right-neighbour", 4);
			awaitProgress(acme);
			Mover mover = MoverTest.this.fixture.mover();
			MoveSettings options = smallBatches().withBatchSize(200).withThrottle(Duration.ofMillis(1));
			List<Long> freezeMillis = new ArrayList<>();
			List<Long> totalMillis = new ArrayList<>();
			List<Long> retries = new ArrayList<>();
			String[] targets = { "shard-2", "shard-1", "shard-2" };
			for (String target : targets) {
				long rejectedBefore = acme.stream().mapToLong(w -> w.rejections()).sum();
				long started = System.nanoTime();
				String moveId = mover.moveAndWait(TENANT, target, options).moveId();
				totalMillis.add((System.nanoTime() - started) / 1_000_000);
				MoveStatus status = mover.status(moveId);
				assertThat(status.step()).isEqualTo(MoveStep.DONE);
				freezeMillis.add(status.freezeWindow().orElseThrow().toMillis());
				awaitProgress(acme);
				retries.add(acme.stream().mapToLong(w -> w.rejections()).sum() - rejectedBefore);
			}
			stopWriters();
			List<TenantWriter> all = new ArrayList<>(MoverTest.this.acmeWriters);
			all.addAll(acme);
			assertTenantLivesOnlyOn("shard-2", "shard-1", all);
			assertThat(MoverTest.this.fixture.orders("shard-1", "left-neighbour"))
				.isEqualTo(TenantWriter.committedOrders(left));
			assertThat(MoverTest.this.fixture.orders("shard-2", "right-neighbour"))
				.isEqualTo(TenantWriter.committedOrders(right));
			assertThat(left).allSatisfy(w -> assertThat(w.rejections()).as("neighbour rejections").isZero());
			assertThat(right).allSatisfy(w -> assertThat(w.rejections()).as("neighbour rejections").isZero());
			assertThat(MoverTest.this.fixture.changeLog("shard-1")).isZero();
			assertThat(MoverTest.this.fixture.changeLog("shard-2")).isZero();
			List<Long> sorted = freezeMillis.stream().sorted().toList();
			System.out.printf("online move under load (H2): %d moves, %d rows of %s at the end, writer ops %d, "
					+ "freeze window ms p50=%d p99=%d max=%d, total move ms %s, writer retries per move %s%n",
					targets.length, MoverTest.this.fixture.rows("shard-2", TENANT),
					TENANT, acme.stream().mapToLong(w -> w.ops()).sum(), percentile(sorted, 50),
					percentile(sorted, 99), sorted.get(sorted.size() - 1), totalMillis, retries);
		}

	}

	private static long percentile(List<Long> sorted, int p) {
		int index = (int) Math.ceil(p / 100.0 * sorted.size()) - 1;
		return sorted.get(Math.max(0, Math.min(index, sorted.size() - 1)));
	}

	@Nested
	@DisplayName("unique keys other than the primary key")
	class UniqueKeys {

		private final List<TenantTable> tables = List.of(MoveFixture.TABLES.get(0), MoveFixture.TABLES.get(1),
				new TenantTable("coupon", "tenant_id"));

		@Test
		@DisplayName("a unique value freed by a deleted row and taken by a new row in one catch-up round reaches the "
				+ "target, and the move completes")
		void uniqueValueOfADeletedRowTakenByANewRowIsApplied() throws Exception {
			Map<Long, String> moved = moveWithWritesBeforeTheFirstCatchUp(
					"DELETE FROM coupon WHERE id = 1",
					"INSERT INTO coupon (id, tenant_id, code) VALUES (4, 'acme', 'SPRING')");

			assertThat(moved).isEqualTo(Map.of(2L, "SUMMER", 3L, "AUTUMN", 4L, "SPRING"));
		}

		@Test
		@DisplayName("a unique value moved by updates from one row to another, logged after the taker's first entry, "
				+ "reaches the target in one catch-up round, and the move completes")
		void uniqueValueMovedBetweenRowsByUpdatesIsApplied() throws Exception {
			// Row 3 is logged first, then row 2 gives up SUMMER, then row 3 takes it.
			Map<Long, String> moved = moveWithWritesBeforeTheFirstCatchUp(
					"UPDATE coupon SET label = 'touched' WHERE id = 3",
					"UPDATE coupon SET code = 'SUMMER-2025' WHERE id = 2",
					"UPDATE coupon SET code = 'SUMMER' WHERE id = 3");

			assertThat(moved).isEqualTo(Map.of(1L, "SPRING", 2L, "SUMMER-2025", 3L, "SUMMER"));
		}

		/**
		 * Seeds three coupons (SPRING, SUMMER, AUTUMN), moves the tenant to shard-2 with the online mover, running the
		 * statements (each in its own transaction of the tenant) right after the copy: all of them land in the first
		 * catch-up round.
		 * @return the tenant's coupons on shard-2 after the move, id to code
		 */
		private Map<Long, String> moveWithWritesBeforeTheFirstCatchUp(String... statements) throws Exception {
			for (String shardId : List.of("shard-1", "shard-2")) {
				Topology.Shard shard = MoverTest.this.fixture.topology().shard(shardId);
				try (Connection c = shard.dataSource().getConnection()) {
					shard.dialect().installWriteCheck(c, "coupon", "tenant_id");
					shard.dialect().installChangeCapture(c, "coupon", "tenant_id");
				}
			}
			asTenant("INSERT INTO coupon (id, tenant_id, code) VALUES (1, 'acme', 'SPRING')",
					"INSERT INTO coupon (id, tenant_id, code) VALUES (2, 'acme', 'SUMMER')",
					"INSERT INTO coupon (id, tenant_id, code) VALUES (3, 'acme', 'AUTUMN')");
			Mover mover = MoverTest.this.fixture.mover(this.tables).withHook((id, step) -> {
					if (step == MoveStep.COPIED) {
						asTenant(statements);
					}
				});

			String moveId = mover.moveAndWait(TENANT, "shard-2", smallBatches()).moveId();

			assertThat(mover.status(moveId).step()).isEqualTo(MoveStep.DONE);
			assertThat(coupons("shard-1")).isEmpty();
			assertTenantLivesOnlyOn("shard-2", "shard-1", MoverTest.this.acmeWriters);
			return coupons("shard-2");
		}

		/** Runs each statement in its own transaction of the tenant, routed and fenced. */
		private void asTenant(String... statements) {
			for (String sql : statements) {
				try {
					Connection c = MoverTest.this.fixture.provider().getConnection(TENANT);
					try (PreparedStatement ps = c.prepareStatement(sql)) {
						c.setAutoCommit(false);
						assertThat(ps.executeUpdate()).as(sql).isEqualTo(1);
						c.commit();
					}
					finally {
						c.setAutoCommit(true);
						MoverTest.this.fixture.provider().releaseConnection(TENANT, c);
					}
				}
				catch (SQLException ex) {
					throw new IllegalStateException(sql, ex);
				}
			}
		}

		/** @return the tenant's coupons on a shard, id to code, read on a raw connection */
		private Map<Long, String> coupons(String shardId) throws SQLException {
			Map<Long, String> coupons = new java.util.TreeMap<>();
			try (Connection c = MoverTest.this.fixture.topology().shard(shardId).dataSource().getConnection();
					PreparedStatement ps = c.prepareStatement("SELECT id, code FROM coupon WHERE tenant_id = ?")) {
				ps.setString(1, TENANT);
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
		@DisplayName("a mover killed after a step is resumed by another mover and the move completes, verified")
		void killedMoverIsResumedByAnother(MoveStep killAfter) throws Exception {
			killAndResume(killAfter, smallBatches());
		}

		@ParameterizedTest(name = "killed after {0}")
		@EnumSource(value = MoveStep.class, names = { "PLANNED", "FROZEN", "COPIED", "VERIFIED", "FLIPPED" })
		@DisplayName("without capture (stop-the-world), a mover killed after a step is resumed by another mover and the "
				+ "move completes, verified")
		void killedStopTheWorldMoverIsResumedByAnother(MoveStep killAfter) throws Exception {
			killAndResume(killAfter, smallBatches().withCapture(false));
		}

		/**
		 * Starts two writers of the tenant, then a move to shard-2 by a mover killed after {@code killAfter}.
		 * @return the killed mover
		 */
		private Mover killedMove(MoveStep killAfter, MoveSettings settings, List<TenantWriter> acme)
				throws InterruptedException {
			acme.addAll(startWriters(TENANT, 2));
			awaitProgress(acme);
			Mover doomed = MoverTest.this.fixture.mover().withHook((id, step) -> {
				if (step == killAfter) {
					throw new Killed(step);
				}
			});
			assertThatThrownBy(() -> doomed.moveAndWait(TENANT, "shard-2", settings)).isInstanceOf(Killed.class);
			return doomed;
		}

		private void killAndResume(MoveStep killAfter, MoveSettings settings) throws Exception {
			List<TenantWriter> acme = new ArrayList<>();
			Mover doomed = killedMove(killAfter, settings, acme);
			MoveStatus stopped = doomed.findActive(TENANT).orElseThrow();
			assertThat(stopped.step()).isEqualTo(killAfter);
			assertThat(stopped.owner()).isEqualTo(doomed.owner());

			Mover successor = MoverTest.this.fixture.mover().withLease(Duration.ZERO);
			MoveStatus done = successor.resume(stopped.moveId());

			assertThat(done.step()).isEqualTo(MoveStep.DONE);
			assertThat(done.freezeWindow()).isPresent();
			assertThat(successor.findActive(TENANT)).isEmpty();
			awaitProgress(acme);
			stopWriters();
			List<TenantWriter> all = new ArrayList<>(MoverTest.this.acmeWriters);
			all.addAll(acme);
			assertTenantLivesOnlyOn("shard-2", "shard-1", all);
			assertThat(ShardFence.get(MoverTest.this.fixture.topology().shard("shard-1").dataSource(),
					"shard-1", TENANT).orElseThrow().state()).isEqualTo(FenceState.MOVED);
		}

		@ParameterizedTest(name = "aborted after {0}")
		@EnumSource(value = MoveStep.class, names = { "PLANNED", "MARKED", "COPIED", "CAUGHT_UP", "FROZEN",
				"FINAL_CAUGHT_UP", "VERIFIED" })
		@DisplayName("an abort before the flip leaves the tenant ACTIVE on the source with nothing lost")
		void abortBeforeFlipRestoresTheSource(MoveStep killAfter) throws Exception {
			killAndAbort(killAfter, smallBatches());
		}

		@ParameterizedTest(name = "aborted after {0}")
		@EnumSource(value = MoveStep.class, names = { "PLANNED", "FROZEN", "COPIED", "VERIFIED" })
		@DisplayName("without capture (stop-the-world), an abort before the flip leaves the tenant ACTIVE on the source "
				+ "with nothing lost")
		void stopTheWorldAbortBeforeFlipRestoresTheSource(MoveStep killAfter) throws Exception {
			killAndAbort(killAfter, smallBatches().withCapture(false));
		}

		private void killAndAbort(MoveStep killAfter, MoveSettings settings) throws Exception {
			List<TenantWriter> acme = new ArrayList<>();
			Mover doomed = killedMove(killAfter, settings, acme);
			String moveId = doomed.findActive(TENANT).orElseThrow().moveId();

			MoveStatus aborted = MoverTest.this.fixture.mover().withLease(Duration.ZERO).abort(moveId);

			assertThat(aborted.step()).isEqualTo(MoveStep.ABORTED);
			awaitProgress(acme);
			stopWriters();
			List<TenantWriter> all = new ArrayList<>(MoverTest.this.acmeWriters);
			all.addAll(acme);
			assertTenantLivesOnlyOn("shard-1", "shard-2", all);
			assertThat(ShardFence.get(MoverTest.this.fixture.topology().shard("shard-1").dataSource(),
					"shard-1", TENANT).orElseThrow().state()).isEqualTo(FenceState.OWNED);
			assertThat(MoverTest.this.fixture.changeLog("shard-1")).isZero();
			// the lock is released: the tenant can be moved again
			String again = MoverTest.this.fixture.mover().moveAndWait(TENANT, "shard-2", settings).moveId();
			assertThat(MoverTest.this.fixture.mover().status(again).step()).isEqualTo(MoveStep.DONE);
			assertTenantLivesOnlyOn("shard-2", "shard-1", all);
		}

		@Test
		@DisplayName("a flipped move cannot be aborted")
		void flippedMoveCannotBeAborted() {
			Mover doomed = MoverTest.this.fixture.mover().withHook((id, step) -> {
				if (step == MoveStep.FLIPPED) {
					throw new Killed(step);
				}
			});
			assertThatThrownBy(() -> doomed.moveAndWait(TENANT, "shard-2", smallBatches())).isInstanceOf(Killed.class);
			String moveId = doomed.findActive(TENANT).orElseThrow().moveId();

			assertThatThrownBy(() -> MoverTest.this.fixture.mover().withLease(Duration.ZERO).abort(moveId))
				.isInstanceOf(MoveException.class)
				.hasMessageContaining("FLIPPED");
			assertThat(MoverTest.this.fixture.directory().find(TENANT).orElseThrow().shardId())
				.isEqualTo("shard-2");
		}

	}

	@Nested
	@DisplayName("refusals")
	class Refusals {

		@Test
		@DisplayName("a second move of a tenant that is moving is refused, also by another mover and the basic mover")
		void secondMoveIsRefused() {
			Mover first = MoverTest.this.fixture.mover().withHook((id, step) -> {
				if (step == MoveStep.MARKED) {
					throw new Killed(step);
				}
			});
			assertThatThrownBy(() -> first.moveAndWait(TENANT, "shard-2", smallBatches())).isInstanceOf(Killed.class);
			String moveId = first.findActive(TENANT).orElseThrow().moveId();
			Mover other = MoverTest.this.fixture.mover();

			assertThatThrownBy(() -> other.moveAndWait(TENANT, "shard-2", MoveSettings.defaults()))
				.isInstanceOfSatisfying(MoveInProgressException.class, ex -> {
					assertThat(ex.moveId()).isEqualTo(moveId);
					assertThat(ex.tenantId()).isEqualTo(TENANT);
				})
				.hasMessageContaining(moveId);
			assertThatThrownBy(() -> other.resume(moveId)).isInstanceOf(MoveInProgressException.class)
				.hasMessageContaining(first.owner());
			assertThatThrownBy(() -> MoverTest.this.fixture.admin().move(TENANT, "shard-2"))
				.isInstanceOfSatisfying(MoveInProgressException.class, ex -> assertThat(ex.moveId()).isEqualTo(moveId))
				.hasMessageContaining("MIGRATING");
			assertThat(other.withLease(Duration.ZERO).abort(moveId).step()).isEqualTo(MoveStep.ABORTED);
		}

		@Test
		@DisplayName("a basic move of a tenant whose online move has flipped but not been cleaned is refused with "
				+ "MoveInProgressException; after the clean it is allowed")
		void basicMoveOfAFlippedButUncleanedTenantIsRefused() {
			Mover mover = MoverTest.this.fixture.mover();
			String moveId = mover.moveAndWait(TENANT, "shard-2", smallBatches().withCleanDelay(Duration.ofHours(1)))
				.moveId();
			assertThat(mover.status(moveId).step()).isEqualTo(MoveStep.FLIPPED);
			long rows = MoverTest.this.fixture.rows("shard-1", TENANT);

			assertThatThrownBy(() -> MoverTest.this.fixture.admin().move(TENANT, "shard-1"))
				.isInstanceOfSatisfying(MoveInProgressException.class, ex -> assertThat(ex.moveId()).isEqualTo(moveId))
				.hasMessageContaining(TENANT)
				.hasMessageContaining("FLIPPED");
			assertThat(MoverTest.this.fixture.rows("shard-1", TENANT)).as("source rows kept").isEqualTo(rows);
			assertThat(MoverTest.this.fixture.directory().find(TENANT).orElseThrow().shardId())
				.isEqualTo("shard-2");

			assertThat(mover.clean(moveId).step()).isEqualTo(MoveStep.DONE);
			MoverTest.this.fixture.admin().move(TENANT, "shard-1");
			assertTenantLivesOnlyOn("shard-1", "shard-2", MoverTest.this.acmeWriters);
		}

		@Test
		@DisplayName("a table without a tenant column makes the move refuse to start, naming the table")
		void tableWithoutTenantColumnIsRefused() {
			DirectoryEntry before = MoverTest.this.fixture.directory().find(TENANT).orElseThrow();
			List<TenantTable> tables = new ArrayList<>(MoveFixture.TABLES);
			tables.add(new TenantTable("shared_setting", "tenant_id"));
			Mover mover = MoverTest.this.fixture.mover(tables);

			assertThatThrownBy(() -> mover.moveAndWait(TENANT, "shard-2", MoveSettings.defaults()))
				.isInstanceOf(MoveException.class)
				.hasMessageContaining("shared_setting")
				.hasMessageContaining("tenant_id");
			assertThat(MoverTest.this.fixture.directory().find(TENANT)).contains(before);
			assertThat(mover.findActive(TENANT)).isEmpty();
		}

	}

	@Nested
	@DisplayName("moves on the executor")
	class OnTheExecutor {

		@Test
		@DisplayName("move returns once the move is recorded; the executor runs it to DONE under writers")
		void moveRunsOnTheExecutor() throws Exception {
			List<TenantWriter> acme = startWriters(TENANT, 2);
			awaitProgress(acme);
			Mover mover = MoverTest.this.fixture.mover();

			String moveId = mover.move(TENANT, "shard-2", smallBatches());

			assertThat(mover.status(moveId).tenantId()).isEqualTo(TENANT);
			await("the move to end").atMost(Duration.ofSeconds(30)).until(() -> mover.status(moveId).isFinished());
			assertThat(mover.status(moveId).step()).isEqualTo(MoveStep.DONE);
			awaitProgress(acme);
			stopWriters();
			List<TenantWriter> all = new ArrayList<>(MoverTest.this.acmeWriters);
			all.addAll(acme);
			assertTenantLivesOnlyOn("shard-2", "shard-1", all);
		}

		@Test
		@DisplayName("the observers are told each recorded step, before the hook, and the abort of a failed move")
		void observersAreToldEachStep() {
			List<String> seen = new CopyOnWriteArrayList<>();
			ShardTenancyObserver observer = new ShardTenancyObserver() {
				@Override
				public void moveStepRecorded(MoveStatus move) {
					seen.add("observer " + move.tenantId() + " " + move.step()
							+ ((move.step() == MoveStep.ABORTED && move.finishedAt() != null) ? " finished" : ""));
				}
			};
			MoverTest.this.fixture.router().addObserver(observer);
			try {
				Mover mover = MoverTest.this.fixture.mover().withHook((id, step) -> {
					seen.add("hook " + step);
					if (step == MoveStep.COPIED) {
						throw new IllegalStateException("refused by the test");
					}
				});

				String moveId = mover.move(TENANT, "shard-2", smallBatches());

				await("the abort to be told").atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(seen).containsExactly("observer acme PLANNED", "hook PLANNED", "observer acme MARKED",
						"hook MARKED", "observer acme COPIED", "hook COPIED", "observer acme ABORTED finished"));
			}
			finally {
				MoverTest.this.fixture.router().removeObserver(observer);
			}
		}

		@Test
		@DisplayName("a step failing on the executor aborts the move and records why")
		void failureOnTheExecutorIsRecorded() {
			Mover mover = MoverTest.this.fixture.mover().withHook((id, step) -> {
				if (step == MoveStep.COPIED) {
					throw new IllegalStateException("refused by the test");
				}
			});

			String moveId = mover.move(TENANT, "shard-2", smallBatches());

			await("the move to end").atMost(Duration.ofSeconds(30)).until(() -> mover.status(moveId).isFinished());
			MoveStatus status = mover.status(moveId);
			assertThat(status.step()).isEqualTo(MoveStep.ABORTED);
			assertThat(status.stepData()).contains("refused by the test");
			assertTenantLivesOnlyOn("shard-1", "shard-2", MoverTest.this.acmeWriters);
		}

	}

	@Nested
	@DisplayName("cleaning")
	class Cleaning {

		@Test
		@DisplayName("with a clean delay the source keeps its rows until cleaned on command")
		void cleanDelayKeepsSourceRowsUntilCleaned() {
			Mover mover = MoverTest.this.fixture.mover();
			long rows = MoverTest.this.fixture.rows("shard-1", TENANT);
			String moveId = mover.moveAndWait(TENANT, "shard-2", smallBatches().withCleanDelay(Duration.ofHours(1)))
				.moveId();

			assertThat(mover.status(moveId).step()).isEqualTo(MoveStep.FLIPPED);
			assertThat(mover.resume(moveId).step()).isEqualTo(MoveStep.FLIPPED);
			assertThat(MoverTest.this.fixture.rows("shard-1", TENANT)).isEqualTo(rows);
			assertThat(MoverTest.this.fixture.rows("shard-2", TENANT)).isEqualTo(rows);

			assertThat(mover.clean(moveId).step()).isEqualTo(MoveStep.DONE);
			assertThat(MoverTest.this.fixture.rows("shard-1", TENANT)).isZero();
			assertTenantLivesOnlyOn("shard-2", "shard-1", MoverTest.this.acmeWriters);
		}

	}

	@Nested
	@DisplayName("catch-up rounds before the freeze")
	class PreFreezeRounds {

		/**
		 * The bound {@link CatchUpStep} documents for its rounds after the one that verifies the whole copy, written out
		 * rather than read from {@link CatchUpStep#PRE_FREEZE_ROUNDS}: a step that runs more rounds before the freeze,
		 * whatever its constant says, fails here.
		 */
		private static final int PRE_FREEZE_ROUNDS = 3;

		/** The step data of {@link CatchUpStep}: rounds up to the verifying one, the lag, and the rounds after it. */
		private static final Pattern CAUGHT_UP = Pattern.compile("rounds=(\\d+) lag=(\\d+) verified rows=(\\d+)"
				+ "(?:; then (\\d+) round\\(s\\) verifying the rows they applied)?");

		@Test
		@DisplayName("writers that keep the lag above the threshold get at most 3 rounds after the verifying one, then "
				+ "the freeze, and every committed write lands on the target once")
		void roundsAfterTheVerifyingOneAreBounded() throws Exception {
			List<TenantWriter> acme = startWriters(TENANT, 8);
			awaitMoreWrites(acme);
			List<CaughtUp> moves = new ArrayList<>();
			for (String target : new String[] { "shard-2", "shard-1", "shard-2" }) {
				Recorded recorded = move(target, aboveTheThreshold());
				assertThat(recorded.status().step()).isEqualTo(MoveStep.DONE);
				assertThat(recorded.steps()).as("steps of the move to " + target)
					.containsSubsequence(MoveStep.CAUGHT_UP, MoveStep.FROZEN, MoveStep.FINAL_CAUGHT_UP,
							MoveStep.VERIFIED, MoveStep.FLIPPED);
				assertThat(recorded.steps().get(recorded.steps().indexOf(MoveStep.CAUGHT_UP) + 1))
					.as("the step after CAUGHT_UP").isEqualTo(MoveStep.FROZEN);
				CaughtUp caughtUp = recorded.caughtUp();
				assertThat(caughtUp.rounds()).as("one round (maxCatchUpRounds) and the verifying one").isEqualTo(2);
				assertThat(caughtUp.after()).as("rounds after the verifying one: " + caughtUp.data())
					.isBetween(0, PRE_FREEZE_ROUNDS);
				if (caughtUp.after() < PRE_FREEZE_ROUNDS) {
					assertThat(caughtUp.lag()).as("fewer rounds only once the lag fell to the threshold: "
							+ caughtUp.data()).isZero();
				}
				moves.add(caughtUp);
				awaitMoreWrites(acme);
			}
			assertThat(moves).as("the writers keep the lag above the threshold: the bound is reached")
				.anySatisfy(m -> {
					assertThat(m.after()).isEqualTo(PRE_FREEZE_ROUNDS);
					assertThat(m.lag()).isPositive();
				});
			assertEveryWriteOnceOn("shard-2", "shard-1", acme);
			System.out.printf("pre-freeze rounds under 8 writers (H2), CAUGHT_UP of %d moves: %s%n", moves.size(),
					moves.stream().map(CaughtUp::data).toList());
		}

		@Test
		@DisplayName("with no write during the move the lag is 0 after the verifying round: no round after it")
		void noRoundAfterTheVerifyingOneWithoutWrites() throws Exception {
			Recorded recorded = move("shard-2", aboveTheThreshold().withMaxCatchUpRounds(5));

			assertThat(recorded.status().step()).isEqualTo(MoveStep.DONE);
			CaughtUp caughtUp = recorded.caughtUp();
			assertThat(caughtUp.lag()).as(caughtUp.data()).isZero();
			assertThat(caughtUp.rounds()).as("one round (lag 0 at once) and the verifying one").isEqualTo(2);
			assertThat(caughtUp.after()).as("rounds after the verifying one: " + caughtUp.data()).isZero();
			assertEveryWriteOnceOn("shard-2", "shard-1", List.of());
		}

		@Test
		@DisplayName("writers with a lag at or below the threshold get no round after the verifying one, and every "
				+ "committed write lands on the target once")
		void noRoundAfterTheVerifyingOneBelowTheThreshold() throws Exception {
			List<TenantWriter> acme = startWriters(TENANT, 8);
			awaitMoreWrites(acme);

			Recorded recorded = move("shard-2",
					aboveTheThreshold().withCatchUpLagThreshold(1_000_000).withMaxCatchUpRounds(5));

			assertThat(recorded.status().step()).isEqualTo(MoveStep.DONE);
			CaughtUp caughtUp = recorded.caughtUp();
			assertThat(caughtUp.lag()).as(caughtUp.data()).isLessThanOrEqualTo(1_000_000);
			assertThat(caughtUp.rounds()).as("one round (below the threshold) and the verifying one").isEqualTo(2);
			assertThat(caughtUp.after()).as("rounds after the verifying one: " + caughtUp.data()).isZero();
			awaitMoreWrites(acme);
			assertEveryWriteOnceOn("shard-2", "shard-1", acme);
		}

		@Test
		@DisplayName("a mover killed after CAUGHT_UP, whose rounds after the verifying one applied and deleted log "
				+ "entries, is resumed by another mover that flips with nothing lost")
		void killedAfterRoundsAfterTheVerifyingOneIsResumed() throws Exception {
			List<TenantWriter> acme = startWriters(TENANT, 8);
			awaitMoreWrites(acme);
			Map<MoveStep, String> data = new ConcurrentHashMap<>();
			Mover doomed = MoverTest.this.fixture.mover().withHook((id, step) -> {
				if (step == MoveStep.CAUGHT_UP) {
					data.put(step, MoverTest.this.fixture.mover().status(id).stepData());
					throw new Killed(step);
				}
			});
			assertThatThrownBy(() -> doomed.moveAndWait(TENANT, "shard-2", aboveTheThreshold()))
				.isInstanceOf(Killed.class);
			CaughtUp caughtUp = CaughtUp.parse(data.get(MoveStep.CAUGHT_UP));
			assertThat(caughtUp.after()).as("rounds after the verifying one ran: " + caughtUp.data())
				.isBetween(1, PRE_FREEZE_ROUNDS);
			MoveStatus stopped = doomed.findActive(TENANT).orElseThrow();
			assertThat(stopped.step()).isEqualTo(MoveStep.CAUGHT_UP);

			Mover successor = MoverTest.this.fixture.mover().withLease(Duration.ZERO);
			MoveStatus done = successor.resume(stopped.moveId());

			assertThat(done.step()).isEqualTo(MoveStep.DONE);
			assertThat(successor.findActive(TENANT)).isEmpty();
			awaitMoreWrites(acme);
			assertEveryWriteOnceOn("shard-2", "shard-1", acme);
			assertThat(ShardFence.get(MoverTest.this.fixture.topology().shard("shard-1").dataSource(), "shard-1",
					TENANT).orElseThrow().state()).isEqualTo(FenceState.MOVED);
		}

		/**
		 * @return settings under which writers keep the lag above the threshold: a threshold of 0 (every round ends
		 * with the writes committed while it ran), one round before the verifying one, small throttled batches
		 */
		private static MoveSettings aboveTheThreshold() {
			return smallBatches().withCatchUpLagThreshold(0).withMaxCatchUpRounds(1).withThrottle(Duration.ofMillis(1));
		}

		/** What the catch-up step recorded: its step data, parsed. */
		record CaughtUp(String data, int rounds, long lag, int after) {

			static CaughtUp parse(String data) {
				assertThat(data).as("CAUGHT_UP step data").isNotNull();
				Matcher matcher = CAUGHT_UP.matcher(data);
				assertThat(matcher.find()).as("CAUGHT_UP step data: " + data).isTrue();
				return new CaughtUp(data, Integer.parseInt(matcher.group(1)), Long.parseLong(matcher.group(2)),
						(matcher.group(4) != null) ? Integer.parseInt(matcher.group(4)) : 0);
			}

		}

		/** A finished move: its status, the steps its hook saw, and its catch-up step's data. */
		record Recorded(MoveStatus status, List<MoveStep> steps, CaughtUp caughtUp) {
		}

		/**
		 * Moves the tenant on the fixture's executor, recording each step and the {@code CAUGHT_UP} step data as the
		 * hook sees them, and waits for the move to finish (bounded: a catch-up that never ends fails here).
		 */
		private Recorded move(String target, MoveSettings settings) {
			List<MoveStep> steps = new CopyOnWriteArrayList<>();
			Map<MoveStep, String> data = new ConcurrentHashMap<>();
			Mover mover = MoverTest.this.fixture.mover().withHook((id, step) -> {
				steps.add(step);
				if (step == MoveStep.CAUGHT_UP) {
					data.put(step, MoverTest.this.fixture.mover().status(id).stepData());
				}
			});
			String moveId = mover.move(TENANT, target, settings);
			await("the move to " + target + " to end").atMost(Duration.ofMinutes(2))
				.until(() -> mover.status(moveId).isFinished());
			return new Recorded(mover.status(moveId), List.copyOf(steps), CaughtUp.parse(data.get(MoveStep.CAUGHT_UP)));
		}

		/** Waits until every writer committed 3 more writes, so that they overlap what follows. */
		private static void awaitMoreWrites(List<TenantWriter> writers) {
			Map<TenantWriter, Long> before = new ConcurrentHashMap<>();
			writers.forEach(w -> before.put(w, w.ops()));
			await("every writer commits 3 more writes").atMost(Duration.ofSeconds(30))
				.until(() -> writers.stream().allMatch(w -> w.ops() >= before.get(w) + 3));
		}

		/**
		 * Stops the writers, then checks that every order and line the seed and the writers committed is on the owner
		 * with its last committed value, that per writer the owner holds as many orders as it committed (once each),
		 * and that nothing of the tenant is left on the other shard or in either change log.
		 */
		private void assertEveryWriteOnceOn(String owner, String other, List<TenantWriter> writers) throws Exception {
			stopWriters();
			List<TenantWriter> all = new ArrayList<>(MoverTest.this.acmeWriters);
			all.addAll(writers);
			assertTenantLivesOnlyOn(owner, other, all);
			for (TenantWriter writer : all) {
				Map<Long, Integer> committed = writer.orders();
				// a writer's order ids are writer * 10,000,000 + n (TenantWriter)
				long base = committed.keySet().iterator().next() / 10_000_000L * 10_000_000L;
				assertThat(countOrders(owner, base, base + 10_000_000L)).as("orders of the writer from " + base)
					.isEqualTo(committed.size());
			}
			assertThat(MoverTest.this.fixture.changeLog(owner)).as("change log of " + owner).isZero();
			assertThat(MoverTest.this.fixture.changeLog(other)).as("change log of " + other).isZero();
		}

		/** @return rows of the tenant's order table on a shard with an id in [from, to), read on a raw connection */
		private long countOrders(String shardId, long from, long to) throws SQLException {
			try (Connection c = MoverTest.this.fixture.topology().shard(shardId).dataSource().getConnection();
					PreparedStatement ps = c.prepareStatement(
							"SELECT COUNT(*) FROM customer_order WHERE tenant_id = ? AND id >= ? AND id < ?")) {
				ps.setString(1, TENANT);
				ps.setLong(2, from);
				ps.setLong(3, to);
				try (ResultSet rs = ps.executeQuery()) {
					rs.next();
					return rs.getLong(1);
				}
			}
		}

	}

}
