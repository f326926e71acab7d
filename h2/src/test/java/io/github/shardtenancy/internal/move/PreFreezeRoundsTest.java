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

import io.github.shardtenancy.DirectoryEntry;
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

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The catch-up step's rounds after the one that verifies the whole copy ({@link CatchUpStep#PRE_FREEZE_ROUNDS}):
 * real online moves on H2 shards under real writers of the tenant, the rounds read from the {@code CAUGHT_UP} step
 * data the step records.
 */
class PreFreezeRoundsTest {

	private static final String TENANT = "acme";

	/**
	 * The bound the catch-up step documents, written out rather than read from {@link CatchUpStep#PRE_FREEZE_ROUNDS}:
	 * a step that runs more rounds before the freeze, whatever its constant says, fails here.
	 */
	private static final int PRE_FREEZE_ROUNDS = 3;

	/** The step data of {@link CatchUpStep}: rounds up to the verifying one, the lag, and the rounds after it. */
	private static final Pattern CAUGHT_UP = Pattern.compile(
			"rounds=(\\d+) lag=(\\d+) verified rows=(\\d+)(?:; then (\\d+) round\\(s\\) verifying the rows they applied)?");

	private MoveFixture fixture;

	private ExecutorService pool;

	private final AtomicBoolean stop = new AtomicBoolean();

	private final List<TenantWriter> writers = new ArrayList<>();

	private final List<Future<TenantWriter>> running = new ArrayList<>();

	@BeforeEach
	void setUp() throws Exception {
		this.fixture = new MoveFixture(2, 24);
		this.pool = Executors.newCachedThreadPool();
		this.fixture.admin().create(TENANT, "shard-1");
		TenantWriter seed = MoveFixture.writer(this.fixture, TENANT, this.stop);
		seed.write(200);
		this.writers.add(seed);
	}

	@AfterEach
	void tearDown() throws Exception {
		this.stop.set(true);
		this.pool.shutdown();
		this.pool.awaitTermination(60, TimeUnit.SECONDS);
		this.fixture.close();
	}

	@Test
	@DisplayName("writers that keep the lag above the threshold get at most 3 (PRE_FREEZE_ROUNDS) rounds after the "
			+ "verifying one, then the freeze, and every committed write lands on the target once")
	void roundsAfterTheVerifyingOneAreBounded() throws Exception {
		List<TenantWriter> acme = startWriters(8);
		awaitProgress(acme);
		// A threshold of 0: every round ends with the writes committed while it ran, so the lag stays above it.
		MoveSettings settings = MoveSettings.defaults().withBatchSize(50).withCatchUpLagThreshold(0)
			.withMaxCatchUpRounds(1).withThrottle(Duration.ofMillis(1));
		List<CaughtUp> moves = new ArrayList<>();
		String[] targets = { "shard-2", "shard-1", "shard-2" };
		for (String target : targets) {
			Recorded recorded = move(target, settings);
			assertThat(recorded.status().step()).isEqualTo(MoveStep.DONE);
			assertThat(recorded.steps()).as("steps of the move to " + target)
				.containsSubsequence(MoveStep.CAUGHT_UP, MoveStep.FROZEN)
				.containsSubsequence(MoveStep.FROZEN, MoveStep.FINAL_CAUGHT_UP, MoveStep.VERIFIED, MoveStep.FLIPPED);
			assertThat(recorded.steps().get(recorded.steps().indexOf(MoveStep.CAUGHT_UP) + 1))
				.as("the step after CAUGHT_UP").isEqualTo(MoveStep.FROZEN);
			CaughtUp caughtUp = recorded.caughtUp();
			assertThat(caughtUp.rounds()).as("one round (maxCatchUpRounds) and the verifying one").isEqualTo(2);
			assertThat(caughtUp.after()).as("rounds after the verifying one: " + caughtUp.data())
				.isBetween(0, PRE_FREEZE_ROUNDS);
			if (caughtUp.after() < PRE_FREEZE_ROUNDS) {
				assertThat(caughtUp.lag()).as("fewer rounds only when the lag fell to the threshold: " + caughtUp.data())
					.isZero();
			}
			moves.add(caughtUp);
			awaitProgress(acme);
		}
		assertThat(moves).as("the writers keep the lag above the threshold: the bound is reached")
			.anySatisfy(m -> {
				assertThat(m.after()).isEqualTo(PRE_FREEZE_ROUNDS);
				assertThat(m.lag()).isPositive();
			});
		stopWriters();
		List<TenantWriter> all = new ArrayList<>(this.writers);
		all.addAll(acme);
		assertEveryWriteOnceOn("shard-2", "shard-1", all);
		System.out.printf("pre-freeze rounds under 8 writers (H2), CAUGHT_UP of %d moves: %s%n", moves.size(),
				moves.stream().map(CaughtUp::data).toList());
	}

	@Test
	@DisplayName("with no write during the move the lag is 0 after the verifying round: no round after it")
	void noRoundAfterTheVerifyingOneWithoutWrites() {
		MoveSettings settings = MoveSettings.defaults().withBatchSize(50).withCatchUpLagThreshold(0)
			.withMaxCatchUpRounds(5);

		Recorded recorded = move("shard-2", settings);

		assertThat(recorded.status().step()).isEqualTo(MoveStep.DONE);
		CaughtUp caughtUp = recorded.caughtUp();
		assertThat(caughtUp.lag()).as(caughtUp.data()).isZero();
		assertThat(caughtUp.rounds()).as("one round (lag 0 at once) and the verifying one").isEqualTo(2);
		assertThat(caughtUp.after()).as("rounds after the verifying one: " + caughtUp.data()).isZero();
		assertEveryWriteOnceOn("shard-2", "shard-1", this.writers);
	}

	@Test
	@DisplayName("writers with a lag at or below the threshold get no round after the verifying one, and every "
			+ "committed write lands on the target once")
	void noRoundAfterTheVerifyingOneBelowTheThreshold() throws Exception {
		List<TenantWriter> acme = startWriters(8);
		awaitProgress(acme);
		MoveSettings settings = MoveSettings.defaults().withBatchSize(50).withCatchUpLagThreshold(1_000_000)
			.withMaxCatchUpRounds(5).withThrottle(Duration.ofMillis(1));

		Recorded recorded = move("shard-2", settings);

		assertThat(recorded.status().step()).isEqualTo(MoveStep.DONE);
		CaughtUp caughtUp = recorded.caughtUp();
		assertThat(caughtUp.lag()).as(caughtUp.data()).isLessThanOrEqualTo(1_000_000);
		assertThat(caughtUp.rounds()).as("one round (below the threshold) and the verifying one").isEqualTo(2);
		assertThat(caughtUp.after()).as("rounds after the verifying one: " + caughtUp.data()).isZero();
		awaitProgress(acme);
		stopWriters();
		List<TenantWriter> all = new ArrayList<>(this.writers);
		all.addAll(acme);
		assertEveryWriteOnceOn("shard-2", "shard-1", all);
	}

	@Test
	@DisplayName("a mover killed after CAUGHT_UP, whose rounds after the verifying one applied and deleted log "
			+ "entries, is resumed by another mover that flips with nothing lost")
	void killedAfterRoundsAfterTheVerifyingOneIsResumed() throws Exception {
		List<TenantWriter> acme = startWriters(8);
		awaitProgress(acme);
		MoveSettings settings = MoveSettings.defaults().withBatchSize(50).withCatchUpLagThreshold(0)
			.withMaxCatchUpRounds(1).withThrottle(Duration.ofMillis(1));
		Map<MoveStep, String> data = new ConcurrentHashMap<>();
		Mover doomed = this.fixture.mover().withHook((id, step) -> {
			if (step == MoveStep.CAUGHT_UP) {
				data.put(step, this.fixture.mover().status(id).stepData());
				throw new MoverTest.Killed(step);
			}
		});
		assertThatThrownBy(() -> doomed.moveAndWait(TENANT, "shard-2", settings))
			.isInstanceOf(MoverTest.Killed.class);
		CaughtUp caughtUp = CaughtUp.parse(data.get(MoveStep.CAUGHT_UP));
		assertThat(caughtUp.after()).as("rounds after the verifying one ran: " + caughtUp.data())
			.isBetween(1, PRE_FREEZE_ROUNDS);
		MoveStatus stopped = doomed.findActive(TENANT).orElseThrow();
		assertThat(stopped.step()).isEqualTo(MoveStep.CAUGHT_UP);

		Mover successor = this.fixture.mover().withLease(Duration.ZERO);
		MoveStatus done = successor.resume(stopped.moveId());

		assertThat(done.step()).isEqualTo(MoveStep.DONE);
		assertThat(successor.findActive(TENANT)).isEmpty();
		awaitProgress(acme);
		stopWriters();
		List<TenantWriter> all = new ArrayList<>(this.writers);
		all.addAll(acme);
		assertEveryWriteOnceOn("shard-2", "shard-1", all);
		assertThat(ShardFence.get(this.fixture.topology().shard("shard-1").dataSource(), "shard-1", TENANT)
			.orElseThrow()
			.state()).isEqualTo(FenceState.MOVED);
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
	 * Moves the tenant on the fixture's executor, recording each step and the {@code CAUGHT_UP} step data as the hook
	 * sees them, and waits for the move to finish (bounded: a catch-up that never ends fails here).
	 */
	private Recorded move(String target, MoveSettings settings) {
		List<MoveStep> steps = new CopyOnWriteArrayList<>();
		Map<MoveStep, String> data = new ConcurrentHashMap<>();
		Mover mover = this.fixture.mover().withHook((id, step) -> {
			steps.add(step);
			if (step == MoveStep.CAUGHT_UP) {
				data.put(step, this.fixture.mover().status(id).stepData());
			}
		});
		String moveId = mover.move(TENANT, target, settings);
		await("the move to " + target + " to end").atMost(Duration.ofMinutes(2))
			.until(() -> mover.status(moveId).isFinished());
		MoveStatus status = mover.status(moveId);
		return new Recorded(status, List.copyOf(steps), CaughtUp.parse(data.get(MoveStep.CAUGHT_UP)));
	}

	private List<TenantWriter> startWriters(int count) {
		List<TenantWriter> started = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			TenantWriter writer = MoveFixture.writer(this.fixture, TENANT, this.stop);
			started.add(writer);
			this.running.add(this.pool.submit(writer));
		}
		return started;
	}

	/** Waits until every writer committed a few more writes, so that they overlap what follows. */
	private static void awaitProgress(List<TenantWriter> writers) {
		Map<TenantWriter, Long> before = new ConcurrentHashMap<>();
		writers.forEach(w -> before.put(w, w.ops()));
		await("every writer commits 3 writes").atMost(Duration.ofSeconds(30))
			.until(() -> writers.stream().allMatch(w -> w.ops() >= before.get(w) + 3));
	}

	/** Stops the writers and rethrows whatever one of them failed with: every writer must return normally. */
	private void stopWriters() throws Exception {
		this.stop.set(true);
		for (Future<TenantWriter> writer : this.running) {
			writer.get(60, TimeUnit.SECONDS);
		}
	}

	/**
	 * Every order and line a writer committed is on the owner once, with its last committed value, and nothing else of
	 * the tenant is there or on the other shard; per writer, the owner holds as many orders as it committed.
	 */
	private void assertEveryWriteOnceOn(String owner, String other, List<TenantWriter> writers) {
		assertThat(this.fixture.orders(owner, TENANT)).as("orders on the owner")
			.isEqualTo(TenantWriter.committedOrders(writers));
		assertThat(this.fixture.lines(owner, TENANT)).as("order lines on the owner")
			.isEqualTo(TenantWriter.committedLines(writers));
		for (TenantWriter writer : writers) {
			Map<Long, Integer> committed = writer.orders();
			// a writer's order ids are writer * 10,000,000 + n (TenantWriter)
			long base = committed.keySet().iterator().next() / 10_000_000L * 10_000_000L;
			assertThat(countOrders(owner, base, base + 10_000_000L)).as("orders of the writer from " + base)
				.isEqualTo(committed.size());
		}
		assertThat(this.fixture.rows(other, TENANT)).as("rows left on " + other).isZero();
		assertThat(this.fixture.changeLog(owner)).as("change log of " + owner).isZero();
		assertThat(this.fixture.changeLog(other)).as("change log of " + other).isZero();
		DirectoryEntry entry = this.fixture.directory().find(TENANT).orElseThrow();
		assertThat(entry.shardId()).isEqualTo(owner);
		assertThat(entry.state()).isEqualTo(TenantState.ACTIVE);
		assertThat(entry.targetShardId()).isNull();
	}

	/** @return rows of the tenant's order table on a shard with an id in [from, to), read on a raw connection */
	private long countOrders(String shardId, long from, long to) {
		try (Connection c = this.fixture.topology().shard(shardId).dataSource().getConnection();
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
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
