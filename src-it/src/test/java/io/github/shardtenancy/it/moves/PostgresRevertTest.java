package io.github.shardtenancy.it.moves;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.MoveException;
import io.github.shardtenancy.MoveInProgressException;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.MoveStatus;
import io.github.shardtenancy.MoveStep;
import io.github.shardtenancy.RouterSettings;
import io.github.shardtenancy.TenantState;
import io.github.shardtenancy.internal.fence.FenceState;
import io.github.shardtenancy.internal.fence.ShardFence;
import io.github.shardtenancy.internal.move.ChangeCapture;
import io.github.shardtenancy.internal.move.Mover;
import io.github.shardtenancy.it.support.AppInstance;
import io.github.shardtenancy.testing.TenantWriter;
import io.github.shardtenancy.testing.pg.PostgresCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Reversible moves on real PostgreSQL shards: the PL/pgSQL fence and change capture on the target during the soak,
 * application writers on one instance (learning of the flips only from fence rejections) and the mover on another.
 */
@DisplayName("Reversible moves on PostgreSQL")
class PostgresRevertTest {

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
		this.app = AppInstance.plain(cluster, "revert-app", RouterSettings.defaults(), 20);
		this.moverInstance = AppInstance.plain(cluster, "mover-" + PostgresCluster.tenant("r"),
				RouterSettings.defaults(), 4);
		this.tenant = PostgresCluster.tenant("reverting");
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

	/**
	 * Small batches, a soak, and each side cleaned one second after its flip (see
	 * {@link PostgresOnlineMoverTest#smallBatches()}).
	 */
	static MoveSettings soak(Duration soak) {
		return PostgresOnlineMoverTest.smallBatches().withSoak(soak);
	}

	private List<TenantWriter> startWriters(int count) {
		List<TenantWriter> writers = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			TenantWriter writer = PostgresMoveFixture.writer(this.app, this.tenant, this.stop);
			writers.add(writer);
			this.tenantWriters.add(writer);
			this.running.add(this.threads.submit(writer));
		}
		return writers;
	}

	private void stopWriters() throws Exception {
		this.stop.set(true);
		for (Future<TenantWriter> writer : this.running) {
			writer.get(60, TimeUnit.SECONDS);
		}
	}

	/** Resumes a move until it has ended (its clean delay passed and the clean ran). */
	static MoveStatus finish(Mover mover, String moveId) {
		return await("the move " + moveId + " ends").atMost(Duration.ofSeconds(60))
			.pollInSameThread()
			.pollDelay(Duration.ZERO)
			.until(() -> mover.resume(moveId), MoveStatus::isFinished);
	}

	private FenceState fence(String shardId) {
		return ShardFence.get(this.app.topology.shard(shardId).dataSource(), shardId, this.tenant).orElseThrow().state();
	}

	/** The owner holds exactly what the writers committed, the other shard none; no capture or log left. */
	private void assertTenantLivesOnlyOn(String owner, String other) {
		assertThat(PostgresMoveFixture.orders(this.app, owner, this.tenant)).as("orders on the owner " + owner)
			.isEqualTo(TenantWriter.committedOrders(this.tenantWriters));
		assertThat(PostgresMoveFixture.lines(this.app, owner, this.tenant)).as("order lines on the owner " + owner)
			.isEqualTo(TenantWriter.committedLines(this.tenantWriters));
		assertThat(PostgresMoveFixture.rows(this.app, other, this.tenant)).as("rows left on " + other).isZero();
		DirectoryEntry entry = this.app.directory.find(this.tenant).orElseThrow();
		assertThat(entry.shardId()).isEqualTo(owner);
		assertThat(entry.state()).isEqualTo(TenantState.ACTIVE);
		assertThat(entry.targetShardId()).isNull();
		assertThat(fence(owner)).isEqualTo(FenceState.OWNED);
		assertThat(fence(other)).isEqualTo(FenceState.MOVED);
		assertThat(PostgresMoveFixture.changeLog(this.app, "shard-1", this.tenant)).as("change log and capture")
			.isZero();
		assertThat(PostgresMoveFixture.changeLog(this.app, "shard-2", this.tenant)).as("change log and capture")
			.isZero();
	}

	@Test
	@DisplayName("a move with a soak keeps the source up to date from the target under writers; the revert returns "
			+ "every committed write to the source exactly once and leaves nothing on the target")
	void revertUnderWritersLosesNothing() throws Exception {
		List<TenantWriter> writers = startWriters(4);
		PostgresOnlineMoverTest.awaitProgress(writers);
		Mover mover = PostgresMoveFixture.mover(this.moverInstance);

		String moveId = mover.moveAndWait(this.tenant, "shard-2", soak(Duration.ofHours(1))).moveId();

		MoveStatus flipped = mover.status(moveId);
		assertThat(flipped.step()).isEqualTo(MoveStep.FLIPPED);
		assertThat(flipped.isRevertable()).isTrue();
		assertThat(fence("shard-1")).as("the source does not serve the tenant").isEqualTo(FenceState.MOVED);
		assertThat(PostgresMoveFixture.rows(this.app, "shard-1", this.tenant)).as("source rows kept").isPositive();
		List<Long> lags = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			PostgresOnlineMoverTest.awaitProgress(writers); // writes on the target
			lags.add(ChangeCapture.lag(this.moverInstance.topology.shard("shard-2"), this.tenant));
			lags.add(mover.reverseCatchUp(moveId));
		}

		MoveStatus reverted = mover.revert(moveId);

		assertThat(reverted.step()).isIn(MoveStep.REVERT_FLIPPED, MoveStep.REVERTED);
		assertThat(this.app.directory.find(this.tenant).orElseThrow().shardId()).isEqualTo("shard-1");
		assertThat(finish(mover, moveId).step()).isEqualTo(MoveStep.REVERTED);
		PostgresOnlineMoverTest.awaitProgress(writers); // writes on the source again
		stopWriters();
		assertTenantLivesOnlyOn("shard-1", "shard-2");
		MoveStatus done = mover.status(moveId);
		System.out.printf("revert under load (PostgreSQL): reverse catch-up lag (entries before/after a round) %s, "
				+ "writer ops %d, retries %d, forward freeze %s%n", lags,
				writers.stream().mapToLong(TenantWriter::ops).sum(),
				writers.stream().mapToLong(TenantWriter::rejections).sum(), done.freezeWindow().orElse(null));
	}

	@Test
	@DisplayName("during the soak the mover's own rounds bring the source up to the target's committed writes")
	void soakRoundsKeepTheSourceUpToDate() throws Exception {
		List<TenantWriter> writers = startWriters(4);
		PostgresOnlineMoverTest.awaitProgress(writers);
		Mover mover = PostgresMoveFixture.mover(this.moverInstance);
		String moveId = mover.moveAndWait(this.tenant, "shard-2", soak(Duration.ofHours(1))).moveId();
		PostgresOnlineMoverTest.awaitProgress(writers);
		PostgresOnlineMoverTest.awaitProgress(writers);
		stopWriters();
		long stopped = System.nanoTime();

		await("the soak's rounds apply the target's writes to the source").atMost(Duration.ofSeconds(30))
			.pollInterval(Duration.ofMillis(20))
			.until(() -> PostgresMoveFixture.orders(this.app, "shard-1", this.tenant)
				.equals(TenantWriter.committedOrders(this.tenantWriters))
					&& PostgresMoveFixture.lines(this.app, "shard-1", this.tenant)
						.equals(TenantWriter.committedLines(this.tenantWriters)));
		long applyMillis = (System.nanoTime() - stopped) / 1_000_000;

		assertThat(mover.status(moveId).step()).isEqualTo(MoveStep.FLIPPED);
		System.out.printf("reverse catch-up (PostgreSQL): last target commit applied to the source within %d ms "
				+ "(rounds every %d ms)%n", applyMillis, Mover.SOAK_ROUND_INTERVAL.toMillis());
		assertThat(mover.clean(moveId).step()).isEqualTo(MoveStep.DONE);
		assertTenantLivesOnlyOn("shard-2", "shard-1");
	}

	@ParameterizedTest(name = "killed after {0}")
	@EnumSource(value = MoveStep.class, names = { "REVERTING", "REVERT_FROZEN", "REVERT_FINAL_CAUGHT_UP",
			"REVERT_VERIFIED", "REVERT_FLIPPED" })
	@DisplayName("a revert killed after a step, its connections cut, is resumed by a new mover instance and ends "
			+ "REVERTED with nothing lost")
	void killedRevertIsResumedByANewInstance(MoveStep killAfter) throws Exception {
		List<TenantWriter> writers = startWriters(2);
		PostgresOnlineMoverTest.awaitProgress(writers);
		Mover doomed = PostgresMoveFixture.mover(this.moverInstance).withHook((id, step) -> {
			if (step == killAfter) {
				int cut = PostgresOnlineMoverTest.cutConnections(cluster, this.moverInstance.name);
				assertThat(cut).as("connections of the mover cut").isPositive();
				throw new PostgresOnlineMoverTest.Killed(step);
			}
		});
		String moveId = doomed.moveAndWait(this.tenant, "shard-2", soak(Duration.ofHours(1))).moveId();
		PostgresOnlineMoverTest.awaitProgress(writers);
		assertThatThrownBy(() -> doomed.revert(moveId)).isInstanceOf(PostgresOnlineMoverTest.Killed.class);
		this.moverInstance.close();
		assertThat(PostgresMoveFixture.mover(this.app).status(moveId).step()).isEqualTo(killAfter);

		try (AppInstance successorInstance = AppInstance.plain(cluster, "mover-successor",
				RouterSettings.defaults(), 4)) {
			Mover successor = PostgresMoveFixture.mover(successorInstance).withLease(Duration.ZERO);
			assertThatThrownBy(() -> successor.abort(moveId)).as("a requested revert is not undone")
				.isInstanceOf(MoveException.class);

			assertThat(finish(successor, moveId).step()).isEqualTo(MoveStep.REVERTED);
		}
		PostgresOnlineMoverTest.awaitProgress(writers);
		stopWriters();
		assertTenantLivesOnlyOn("shard-1", "shard-2");
	}

	@Test
	@DisplayName("once the soak has passed the mover finalises the move, and a second move is refused until then")
	void soakExpiryFinalises() throws Exception {
		List<TenantWriter> writers = startWriters(2);
		PostgresOnlineMoverTest.awaitProgress(writers);
		Mover mover = PostgresMoveFixture.mover(this.moverInstance);
		String moveId = mover.moveAndWait(this.tenant, "shard-2", soak(Duration.ofSeconds(3))).moveId();
		assertThatThrownBy(() -> mover.moveAndWait(this.tenant, "shard-1", MoveSettings.defaults()))
			.isInstanceOfSatisfying(MoveInProgressException.class, ex -> assertThat(ex.moveId()).isEqualTo(moveId))
			.hasMessageContaining("soak");

		await("the soak to end and the move to be finalised").atMost(Duration.ofSeconds(60))
			.until(() -> mover.status(moveId).isFinished());

		assertThat(mover.status(moveId).step()).isEqualTo(MoveStep.DONE);
		assertThatThrownBy(() -> mover.revert(moveId)).isInstanceOf(MoveException.class)
			.hasMessageContaining("finalised");
		PostgresOnlineMoverTest.awaitProgress(writers);
		stopWriters();
		assertTenantLivesOnlyOn("shard-2", "shard-1");
	}

}
