package io.github.shardtenancy.internal.move;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import javax.sql.DataSource;

import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.MoveException;
import io.github.shardtenancy.MoveInProgressException;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.MoveStatus;
import io.github.shardtenancy.MoveStep;
import io.github.shardtenancy.TenantState;
import io.github.shardtenancy.internal.fence.FenceState;
import io.github.shardtenancy.internal.fence.ShardFence;
import io.github.shardtenancy.testing.TenantWriter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Reversible moves on H2 shards: a move with a soak keeps its source up to date from the target (reverse catch-up)
 * until it is finalised or reverted, with application writers of the moving tenant running through the connection
 * provider and the fence throughout.
 */
class RevertTest {

	private static final String TENANT = "acme";

	private MoveFixture fixture;

	private ExecutorService pool;

	/** Writers of the tenant, with the flag that stops each group. */
	private final List<TenantWriter> writers = new ArrayList<>();

	private final List<Future<TenantWriter>> running = new ArrayList<>();

	private final List<AtomicBoolean> stops = new ArrayList<>();

	@BeforeEach
	void setUp() throws Exception {
		this.fixture = new MoveFixture(2, 24);
		this.pool = Executors.newCachedThreadPool();
		this.fixture.admin().create(TENANT, "shard-1");
		AtomicBoolean seedStop = new AtomicBoolean();
		this.stops.add(seedStop);
		this.writers.add(MoveFixture.writer(this.fixture, TENANT, seedStop).write(200));
	}

	@AfterEach
	void tearDown() throws Exception {
		this.stops.forEach(stop -> stop.set(true));
		this.pool.shutdown();
		this.pool.awaitTermination(60, TimeUnit.SECONDS);
		this.fixture.close();
	}

	private static MoveSettings soak(Duration soak) {
		return MoveSettings.defaults().withBatchSize(50).withCatchUpLagThreshold(10).withMaxCatchUpRounds(5)
			.withSoak(soak);
	}

	/** Starts writers of the tenant; the returned flag stops them. */
	private List<TenantWriter> startWriters(int count, AtomicBoolean stop) {
		List<TenantWriter> started = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			TenantWriter writer = MoveFixture.writer(this.fixture, TENANT, stop);
			started.add(writer);
			this.writers.add(writer);
			this.running.add(this.pool.submit(writer));
		}
		return started;
	}

	private AtomicBoolean newStop() {
		AtomicBoolean stop = new AtomicBoolean();
		this.stops.add(stop);
		return stop;
	}

	/** Waits until every writer committed {@code more} further writes, so that they overlap what came before. */
	private static void awaitProgress(List<TenantWriter> writers, int more) {
		long[] before = writers.stream().mapToLong(TenantWriter::ops).toArray();
		await("every writer commits " + more + " more writes").atMost(Duration.ofSeconds(60)).until(() -> {
			for (int i = 0; i < before.length; i++) {
				if (writers.get(i).ops() < before[i] + more) {
					return false;
				}
			}
			return true;
		});
	}

	/** Stops all writers and rethrows what one failed with: every writer must return normally. */
	private void stopWriters() throws Exception {
		this.stops.forEach(stop -> stop.set(true));
		for (Future<TenantWriter> writer : this.running) {
			writer.get(60, TimeUnit.SECONDS);
		}
	}

	private void assertTenantLivesOnlyOn(String owner, String other) {
		assertThat(this.fixture.orders(owner, TENANT)).as("orders on " + owner)
			.isEqualTo(TenantWriter.committedOrders(this.writers));
		assertThat(this.fixture.lines(owner, TENANT)).as("order lines on " + owner)
			.isEqualTo(TenantWriter.committedLines(this.writers));
		assertThat(this.fixture.rows(other, TENANT)).as("rows left on " + other).isZero();
		DirectoryEntry entry = this.fixture.directory().find(TENANT).orElseThrow();
		assertThat(entry.shardId()).isEqualTo(owner);
		assertThat(entry.state()).isEqualTo(TenantState.ACTIVE);
		assertThat(entry.targetShardId()).isNull();
		assertThat(fence(owner)).isEqualTo(FenceState.OWNED);
		assertThat(fence(other)).isEqualTo(FenceState.MOVED);
		assertThat(this.fixture.changeLog("shard-1")).as("change log on shard-1").isZero();
		assertThat(this.fixture.changeLog("shard-2")).as("change log on shard-2").isZero();
		assertThat(captured("shard-1")).as("capture on shard-1").isZero();
		assertThat(captured("shard-2")).as("capture on shard-2").isZero();
	}

	private FenceState fence(String shardId) {
		return ShardFence.get(this.fixture.topology().shard(shardId).dataSource(), shardId, TENANT).orElseThrow()
			.state();
	}

	/** @return the tenant's rows in a shard's {@code shard_capture} (1 while its writes are captured there) */
	private long captured(String shardId) {
		return this.fixture.captured(shardId, TENANT);
	}

	/** @return a mover that stops, as a crash would, after recording {@code killAfter} */
	private Mover killedAfter(MoveStep killAfter) {
		return this.fixture.mover().withHook((id, step) -> {
			if (step == killAfter) {
				throw new MoverTest.Killed(step);
			}
		});
	}

	@Test
	@DisplayName("a move with a soak keeps the source up to date from the target under writers; the revert returns "
			+ "every committed write to the source exactly once and leaves nothing on the target")
	void revertUnderWritersLosesNothing() throws Exception {
		AtomicBoolean stop = newStop();
		List<TenantWriter> acme = startWriters(4, stop);
		awaitProgress(acme, 3);
		Mover mover = this.fixture.mover();

		MoveStatus flipped = mover.status(mover.moveAndWait(TENANT, "shard-2", soak(Duration.ofHours(1))).moveId());

		assertThat(flipped.step()).isEqualTo(MoveStep.FLIPPED);
		assertThat(flipped.isRevertable()).isTrue();
		assertThat(flipped.soakUntil()).contains(flipped.flippedAt().plus(Duration.ofHours(1)));
		assertThat(this.fixture.directory().find(TENANT).orElseThrow().shardId()).isEqualTo("shard-2");
		assertThat(fence("shard-1")).as("the source does not serve the tenant").isEqualTo(FenceState.MOVED);
		assertThat(captured("shard-2")).as("reverse capture on the target").isEqualTo(1);
		awaitProgress(acme, 20); // writes on the target
		List<Long> lags = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			long behind = ChangeCapture.lag(this.fixture.topology().shard("shard-2"), TENANT);
			long after = mover.reverseCatchUp(flipped.moveId());
			lags.add(behind);
			lags.add(after);
			awaitProgress(acme, 5);
		}

		MoveStatus reverted = mover.revert(flipped.moveId());

		assertThat(reverted.step()).isEqualTo(MoveStep.REVERTED);
		assertThat(reverted.isFinished()).isTrue();
		assertThat(mover.findActive(TENANT)).isEmpty();
		awaitProgress(acme, 5); // writes on the source again
		stopWriters();
		assertTenantLivesOnlyOn("shard-1", "shard-2");
		System.out.printf("revert under load (H2): reverse catch-up lag (entries before/after a round) %s, writer "
				+ "ops %d, retries %d%n", lags, acme.stream().mapToLong(TenantWriter::ops).sum(),
				acme.stream().mapToLong(TenantWriter::rejections).sum());
	}

	@Test
	@DisplayName("during the soak the mover's own rounds bring the source up to the target's committed writes")
	void soakRoundsKeepTheSourceUpToDate() throws Exception {
		AtomicBoolean stop = newStop();
		List<TenantWriter> acme = startWriters(4, stop);
		awaitProgress(acme, 3);
		Mover mover = this.fixture.mover();
		String moveId = mover.moveAndWait(TENANT, "shard-2", soak(Duration.ofHours(1))).moveId();
		awaitProgress(acme, 20);
		stopWriters();
		long stopped = System.nanoTime();

		await("the soak's rounds apply the target's writes to the source").atMost(Duration.ofSeconds(30))
			.pollInterval(Duration.ofMillis(20))
			.until(() -> this.fixture.orders("shard-1", TENANT).equals(TenantWriter.committedOrders(this.writers))
					&& this.fixture.lines("shard-1", TENANT).equals(TenantWriter.committedLines(this.writers)));
		long applyMillis = (System.nanoTime() - stopped) / 1_000_000;

		assertThat(this.fixture.orders("shard-2", TENANT)).isEqualTo(TenantWriter.committedOrders(this.writers));
		assertThat(mover.status(moveId).step()).isEqualTo(MoveStep.FLIPPED);
		await("the change log drained").atMost(Duration.ofSeconds(30))
			.until(() -> this.fixture.changeLog("shard-2") == 0);
		assertThat(mover.status(moveId).stepData()).contains("reverse catch-up lag=");
		System.out.printf("reverse catch-up (H2): last target commit applied to the source within %d ms (rounds every "
				+ "%d ms)%n", applyMillis, Mover.SOAK_ROUND_INTERVAL.toMillis());
	}

	@ParameterizedTest(name = "killed after {0}")
	@EnumSource(value = MoveStep.class, names = { "REVERTING", "REVERT_FROZEN", "REVERT_FINAL_CAUGHT_UP",
			"REVERT_VERIFIED", "REVERT_FLIPPED" })
	@DisplayName("a revert killed after a step is resumed by another mover and ends REVERTED with nothing lost")
	void killedRevertIsResumed(MoveStep killAfter) throws Exception {
		AtomicBoolean stop = newStop();
		List<TenantWriter> acme = startWriters(2, stop);
		awaitProgress(acme, 3);
		Mover doomed = killedAfter(killAfter);
		String moveId = doomed.moveAndWait(TENANT, "shard-2", soak(Duration.ofHours(1))).moveId();
		awaitProgress(acme, 10);

		assertThatThrownBy(() -> doomed.revert(moveId)).isInstanceOf(MoverTest.Killed.class);
		MoveStatus stopped = doomed.status(moveId);
		assertThat(stopped.step()).isEqualTo(killAfter);
		assertThat(stopped.isRevertable()).isFalse();
		// a revert once requested is never undone, not even by an abort
		assertThatThrownBy(() -> this.fixture.mover().withLease(Duration.ZERO).abort(moveId))
			.isInstanceOf(MoveException.class);

		MoveStatus done = this.fixture.mover().withLease(Duration.ZERO).resume(moveId);

		assertThat(done.step()).isEqualTo(MoveStep.REVERTED);
		awaitProgress(acme, 5);
		stopWriters();
		assertTenantLivesOnlyOn("shard-1", "shard-2");
	}

	@Test
	@DisplayName("a revert killed in its freeze is finished by calling revert again")
	void killedRevertIsFinishedByRevert() throws Exception {
		AtomicBoolean stop = newStop();
		List<TenantWriter> acme = startWriters(2, stop);
		awaitProgress(acme, 3);
		Mover doomed = killedAfter(MoveStep.REVERT_FROZEN);
		String moveId = doomed.moveAndWait(TENANT, "shard-2", soak(Duration.ofHours(1))).moveId();
		awaitProgress(acme, 10);
		assertThatThrownBy(() -> doomed.revert(moveId)).isInstanceOf(MoverTest.Killed.class);
		assertThat(this.fixture.directory().find(TENANT).orElseThrow().state()).isEqualTo(TenantState.FROZEN);

		assertThat(this.fixture.mover().withLease(Duration.ZERO).revert(moveId).step()).isEqualTo(MoveStep.REVERTED);

		awaitProgress(acme, 5);
		stopWriters();
		assertTenantLivesOnlyOn("shard-1", "shard-2");
	}

	@ParameterizedTest(name = "killed after {0}")
	@EnumSource(value = MoveStep.class, names = { "VERIFIED", "FLIPPED" })
	@DisplayName("a forward move with a soak killed around its flip is resumed, stays revertable and reverts with "
			+ "nothing lost")
	void killedForwardMoveWithSoakStillReverts(MoveStep killAfter) throws Exception {
		AtomicBoolean stop = newStop();
		List<TenantWriter> acme = startWriters(2, stop);
		awaitProgress(acme, 3);
		Mover doomed = killedAfter(killAfter);
		assertThatThrownBy(() -> doomed.moveAndWait(TENANT, "shard-2", soak(Duration.ofHours(1))))
			.isInstanceOf(MoverTest.Killed.class);
		String moveId = doomed.findActive(TENANT).orElseThrow().moveId();
		Mover successor = this.fixture.mover().withLease(Duration.ZERO);

		assertThat(successor.resume(moveId).step()).isEqualTo(MoveStep.FLIPPED);
		awaitProgress(acme, 10);
		assertThat(successor.revert(moveId).step()).isEqualTo(MoveStep.REVERTED);

		awaitProgress(acme, 5);
		stopWriters();
		assertTenantLivesOnlyOn("shard-1", "shard-2");
	}

	@Test
	@DisplayName("once the soak has passed, the mover finalises the move: source cleaned, capture off, not revertable")
	void soakExpiryFinalises() throws Exception {
		AtomicBoolean stop = newStop();
		List<TenantWriter> acme = startWriters(2, stop);
		awaitProgress(acme, 3);
		Mover mover = this.fixture.mover();
		String moveId = mover.moveAndWait(TENANT, "shard-2", soak(Duration.ofSeconds(2))).moveId();
		assertThat(mover.status(moveId).step()).isEqualTo(MoveStep.FLIPPED);

		await("the soak to end and the move to be finalised").atMost(Duration.ofSeconds(30))
			.until(() -> mover.status(moveId).isFinished());

		assertThat(mover.status(moveId).step()).isEqualTo(MoveStep.DONE);
		assertThatThrownBy(() -> mover.revert(moveId)).isInstanceOf(MoveException.class)
			.hasMessageContaining("finalised");
		awaitProgress(acme, 5);
		stopWriters();
		assertTenantLivesOnlyOn("shard-2", "shard-1");
	}

	@Test
	@DisplayName("clean finalises a move in its soak at once")
	void cleanFinalises() throws Exception {
		Mover mover = this.fixture.mover();
		String moveId = mover.moveAndWait(TENANT, "shard-2", soak(Duration.ofHours(1))).moveId();
		assertThat(this.fixture.mover().findSoaking()).extracting(MoveStatus::moveId).containsExactly(moveId);

		assertThat(mover.clean(moveId).step()).isEqualTo(MoveStep.DONE);

		assertThat(this.fixture.mover().findSoaking()).isEmpty();

		assertTenantLivesOnlyOn("shard-2", "shard-1");
	}

	@Test
	@DisplayName("a clean that failed half-way (the target's capture switched off, the source's delete failed on a "
			+ "lock) makes the move unrevertable, also for another mover; resuming it finishes the clean, nothing lost")
	void startedCleanIsNotRevertable() throws Exception {
		Mover mover = this.fixture.mover();
		String moveId = mover.moveAndWait(TENANT, "shard-2", soak(Duration.ofHours(1))).moveId();
		DataSource source = this.fixture.topology().shard("shard-1").dataSource();
		try (Connection locker = source.getConnection();
				PreparedStatement lock = locker
					.prepareStatement("SELECT id FROM order_line WHERE tenant_id = ? FOR UPDATE")) {
			locker.setAutoCommit(false);
			lock.setString(1, TENANT);
			lock.executeQuery().close();
			assertThatThrownBy(() -> mover.clean(moveId)).isInstanceOf(RuntimeException.class);
			locker.rollback();
		}

		MoveStatus failed = mover.status(moveId);
		assertThat(failed.step()).isEqualTo(MoveStep.FLIPPED);
		assertThat(failed.isCleanStarted()).isTrue();
		assertThat(failed.isRevertable()).isFalse();
		assertThat(captured("shard-2")).as("the target's capture is off").isZero();
		assertThatThrownBy(() -> this.fixture.mover().withLease(Duration.ZERO).revert(moveId))
			.isInstanceOf(MoveException.class)
			.hasMessageContaining("clean has started");
		assertThat(this.fixture.mover().withLease(Duration.ZERO).reverseCatchUp(moveId)).isEqualTo(-1L);

		assertThat(this.fixture.mover().withLease(Duration.ZERO).resume(moveId).step()).isEqualTo(MoveStep.DONE);
		assertTenantLivesOnlyOn("shard-2", "shard-1");
	}

	@Test
	@DisplayName("a second move of a tenant in its soak is refused with MoveInProgressException naming the soak")
	void secondMoveInSoakIsRefused() {
		Mover mover = this.fixture.mover();
		String moveId = mover.moveAndWait(TENANT, "shard-2", soak(Duration.ofHours(1))).moveId();

		assertThatThrownBy(() -> mover.moveAndWait(TENANT, "shard-1", MoveSettings.defaults()))
			.isInstanceOfSatisfying(MoveInProgressException.class, ex -> assertThat(ex.moveId()).isEqualTo(moveId))
			.hasMessageContaining("soak")
			.hasMessageContaining("revert");
		assertThatThrownBy(() -> this.fixture.admin().move(TENANT, "shard-1"))
			.isInstanceOfSatisfying(MoveInProgressException.class, ex -> assertThat(ex.moveId()).isEqualTo(moveId));
		assertThat(mover.status(moveId).isRevertable()).isTrue();
	}

	@Test
	@DisplayName("a revert is refused, saying why, for a move without a soak and for one not flipped yet")
	void revertRefusals() {
		Mover mover = this.fixture.mover();
		String plain = mover.moveAndWait(TENANT, "shard-2", soak(Duration.ZERO)
			.withCleanDelay(Duration.ofHours(1))).moveId();
		assertThatThrownBy(() -> mover.revert(plain)).isInstanceOf(MoveException.class)
			.hasMessageContaining("no soak");
		mover.clean(plain);

		Mover stopped = killedAfter(MoveStep.COPIED);
		assertThatThrownBy(() -> stopped.moveAndWait(TENANT, "shard-1", soak(Duration.ofHours(1))))
			.isInstanceOf(MoverTest.Killed.class);
		String early = stopped.findActive(TENANT).orElseThrow().moveId();
		assertThatThrownBy(() -> this.fixture.mover().withLease(Duration.ZERO).revert(early))
			.isInstanceOf(MoveException.class)
			.hasMessageContaining("abort it instead");
		assertThat(this.fixture.mover().withLease(Duration.ZERO).abort(early).step()).isEqualTo(MoveStep.ABORTED);
		assertThat(captured("shard-1")).isZero();
		assertThat(captured("shard-2")).isZero();
	}

	@Test
	@DisplayName("an abort of a move with a soak after its verification switches the target's capture off again")
	void abortAfterVerifyOfASoakingMove() throws SQLException {
		Mover doomed = killedAfter(MoveStep.VERIFIED);
		assertThatThrownBy(() -> doomed.moveAndWait(TENANT, "shard-2", soak(Duration.ofHours(1))))
			.isInstanceOf(MoverTest.Killed.class);
		String moveId = doomed.findActive(TENANT).orElseThrow().moveId();
		// as a flip that stopped between switching the target's capture on and its directory write leaves it
		var target = this.fixture.topology().shard("shard-2");
		try (Connection c = target.dataSource().getConnection()) {
			ChangeCapture.captureOn(target, TENANT, moveId, TablePlan.plan(c, "shard-2", TENANT, MoveFixture.TABLES));
		}
		assertThat(captured("shard-2")).isEqualTo(1);

		assertThat(this.fixture.mover().withLease(Duration.ZERO).abort(moveId).step()).isEqualTo(MoveStep.ABORTED);

		assertTenantLivesOnlyOn("shard-1", "shard-2");
	}

}
