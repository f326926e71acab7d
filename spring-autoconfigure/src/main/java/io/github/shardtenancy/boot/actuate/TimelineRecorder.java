package io.github.shardtenancy.boot.actuate;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

import io.github.shardtenancy.MoveStatus;
import io.github.shardtenancy.MoveStep;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.spi.ShardTenancyObserver;
import org.jspecify.annotations.Nullable;
import org.springframework.transaction.TransactionExecution;
import org.springframework.transaction.TransactionExecutionListener;

/**
 * Records the {@link Timeline} of the last {@code window} seconds: per second, the read-write transactions committed
 * (told by {@link #transactionListener()}, which the auto-configuration adds to every transaction manager bean), the
 * retries and the fence rejections (told as the tenancy's {@link ShardTenancyObserver}), in total and for each tenant
 * whose move is running (the tenant bound by {@link TenantContext} on the thread of the event), and the freeze window
 * of each move ({@link ShardTenancyObserver#moveStepRecorded(MoveStatus)}). Counts live in a ring of one slot per
 * second; nothing is stored per tenant but the tenants being moved, and at most {@value #MAX_MOVES} moves are
 * remembered.
 *
 * <p>Thread-safe: every event is a few adder increments, safe from any number of threads; {@link #timeline(int)}
 * reads without stopping them (a second still counting is read as far as it got).
 */
public final class TimelineRecorder implements ShardTenancyObserver {

	/** Most moves remembered at once; the oldest are forgotten first. */
	static final int MAX_MOVES = 64;

	private final int windowSeconds;

	private final Clock clock;

	/** One slot per second, {@code windowSeconds + 2} of them so that the oldest second read is never reset. */
	private final Slot[] slots;

	/** Moves by id, as last recorded. */
	private final Map<String, MoveStatus> moves = new ConcurrentHashMap<>();

	/** The tenants whose move is running, to the move's id. */
	private final Map<String, String> moving = new ConcurrentHashMap<>();

	private final TransactionExecutionListener transactionListener = new CommitCounter();

	/**
	 * @param window how long the timeline reaches back, rounded down to whole seconds
	 * @throws IllegalArgumentException if the window is shorter than 1 second or longer than 1 day
	 */
	public TimelineRecorder(Duration window) {
		this(window, Clock.systemUTC());
	}

	TimelineRecorder(Duration window, Clock clock) {
		long seconds = window.toSeconds();
		if (seconds < 1 || seconds > Duration.ofDays(1).toSeconds()) {
			throw new IllegalArgumentException("window must be between 1 second and 1 day, was " + window);
		}
		this.windowSeconds = (int) seconds;
		this.clock = Objects.requireNonNull(clock, "clock");
		this.slots = new Slot[this.windowSeconds + 2];
		for (int i = 0; i < this.slots.length; i++) {
			this.slots[i] = new Slot();
		}
	}

	/** @return the seconds the timeline reaches back */
	public int windowSeconds() {
		return this.windowSeconds;
	}

	/**
	 * @return the listener counting committed read-write transactions: a transaction counts once, when it began a
	 * transaction of its own ({@link TransactionExecution#isNewTransaction()}) and committed without failure; never
	 * {@code null}
	 */
	public TransactionExecutionListener transactionListener() {
		return this.transactionListener;
	}

	@Override
	public void fenceRejected(String shardId, String reason) {
		count(Counts::fenceRejected);
	}

	@Override
	public void retried() {
		count(Counts::retried);
	}

	@Override
	public void moveStepRecorded(MoveStatus move) {
		this.moves.put(move.moveId(), move);
		if (move.step().isFinal()) {
			this.moving.remove(move.tenantId(), move.moveId());
		}
		else {
			this.moving.put(move.tenantId(), move.moveId());
		}
		forgetOldMoves();
	}

	private void forgetOldMoves() {
		long oldest = (nowSecond() - this.windowSeconds) * 1000;
		this.moves.values().removeIf((move) -> move.isFinished() && move.finishedAt() != null
				&& move.finishedAt().toEpochMilli() < oldest);
		while (this.moves.size() > MAX_MOVES) {
			this.moves.values()
				.stream()
				.min(Comparator.comparing(MoveStatus::createdAt))
				.ifPresent((move) -> {
					this.moves.remove(move.moveId());
					this.moving.remove(move.tenantId(), move.moveId());
				});
		}
	}

	private void count(Consumer<Counts> event) {
		long second = nowSecond();
		Slot slot = slot(second);
		event.accept(slot.total);
		String tenant = TenantContext.current();
		if (tenant != null && this.moving.containsKey(tenant)) {
			event.accept(slot.tenants.computeIfAbsent(tenant, (t) -> new Counts()));
		}
	}

	private long nowSecond() {
		return Math.floorDiv(this.clock.millis(), 1000);
	}

	/** @return the slot of that second, emptied first if it last held an older one */
	private Slot slot(long second) {
		Slot slot = this.slots[(int) Math.floorMod(second, (long) this.slots.length)];
		if (slot.epochSecond != second) {
			synchronized (slot) {
				if (slot.epochSecond != second) {
					slot.total.reset();
					slot.tenants.clear();
					slot.epochSecond = second;
				}
			}
		}
		return slot;
	}

	/**
	 * @param seconds how many seconds to read back from now, the current one included; at most the window
	 * @return the last {@code seconds} seconds, the current one (still counting) last; never {@code null}
	 * @throws IllegalArgumentException if {@code seconds} is below 1 or above {@link #windowSeconds()}
	 */
	public Timeline timeline(int seconds) {
		if (seconds < 1 || seconds > this.windowSeconds) {
			throw new IllegalArgumentException(
					"seconds must be between 1 and " + this.windowSeconds + " (the timeline's window), was " + seconds);
		}
		long to = nowSecond();
		long from = to - seconds + 1;
		List<MoveStatus> moves = new ArrayList<>(this.moves.values());
		moves.sort(Comparator.comparing(MoveStatus::createdAt).thenComparing(MoveStatus::moveId));
		long fromMilli = from * 1000;
		List<MoveStatus> inPeriod = moves.stream()
			.filter((move) -> move.finishedAt() == null || move.finishedAt().toEpochMilli() >= fromMilli)
			.toList();
		Map<String, MoveStatus> lastMoveOfTenant = new LinkedHashMap<>();
		inPeriod.forEach((move) -> {
			lastMoveOfTenant.remove(move.tenantId());
			lastMoveOfTenant.put(move.tenantId(), move);
		});
		List<Timeline.Second> total = new ArrayList<>(seconds);
		Map<String, List<Timeline.Second>> byTenant = new HashMap<>();
		lastMoveOfTenant.keySet().forEach((tenant) -> byTenant.put(tenant, new ArrayList<>(seconds)));
		for (long second = from; second <= to; second++) {
			Slot slot = this.slots[(int) Math.floorMod(second, (long) this.slots.length)];
			boolean current = slot.epochSecond == second;
			total.add(current ? slot.total.read(second) : empty(second));
			for (Map.Entry<String, List<Timeline.Second>> tenant : byTenant.entrySet()) {
				Counts counts = current ? slot.tenants.get(tenant.getKey()) : null;
				tenant.getValue().add((counts != null) ? counts.read(second) : empty(second));
			}
		}
		List<Timeline.TenantSeries> tenants = new ArrayList<>();
		lastMoveOfTenant.forEach((tenant, move) -> tenants.add(new Timeline.TenantSeries(tenant, move.moveId(),
				move.sourceShardId(), move.targetShardId(), move.step().name(), List.copyOf(byTenant.get(tenant)))));
		List<Timeline.FreezeWindow> freezes = new ArrayList<>();
		for (MoveStatus move : inPeriod) {
			FreezeWindowEnd end = freezeEnd(move);
			if (move.frozenAt() != null && (end == null || end.atEpochMilli() >= fromMilli)) {
				freezes.add(new Timeline.FreezeWindow(move.tenantId(), move.moveId(), move.sourceShardId(),
						move.targetShardId(), move.frozenAt().toEpochMilli(), (end != null) ? end.atEpochMilli() : null,
						(end != null) ? end.by() : null));
			}
		}
		return new Timeline(from, to, this.windowSeconds, List.copyOf(total), List.copyOf(tenants),
				List.copyOf(freezes));
	}

	private static @Nullable FreezeWindowEnd freezeEnd(MoveStatus move) {
		if (move.flippedAt() != null) {
			return new FreezeWindowEnd(move.flippedAt().toEpochMilli(), MoveStep.FLIPPED.name());
		}
		if (move.step() == MoveStep.ABORTED) {
			long at = (move.finishedAt() != null) ? move.finishedAt().toEpochMilli()
					: (move.heartbeat() != null) ? move.heartbeat().toEpochMilli() : move.frozenAt().toEpochMilli();
			return new FreezeWindowEnd(at, MoveStep.ABORTED.name());
		}
		return null;
	}

	private static Timeline.Second empty(long second) {
		return new Timeline.Second(second, 0, 0, 0);
	}

	private record FreezeWindowEnd(long atEpochMilli, String by) {
	}

	/** The counts of one second: in total, and for each tenant being moved. */
	private static final class Slot {

		volatile long epochSecond = Long.MIN_VALUE;

		final Counts total = new Counts();

		final Map<String, Counts> tenants = new ConcurrentHashMap<>();

	}

	private static final class Counts {

		final LongAdder committed = new LongAdder();

		final LongAdder retries = new LongAdder();

		final LongAdder fenceRejections = new LongAdder();

		void committed() {
			this.committed.increment();
		}

		void retried() {
			this.retries.increment();
		}

		void fenceRejected() {
			this.fenceRejections.increment();
		}

		void reset() {
			this.committed.reset();
			this.retries.reset();
			this.fenceRejections.reset();
		}

		Timeline.Second read(long second) {
			return new Timeline.Second(second, this.committed.sum(), this.retries.sum(), this.fenceRejections.sum());
		}

	}

	/** Counts each read-write transaction that began on its own and committed. Stateless. */
	private final class CommitCounter implements TransactionExecutionListener {

		@Override
		public void afterCommit(TransactionExecution transaction, @Nullable Throwable commitFailure) {
			if (commitFailure == null && transaction.isNewTransaction() && !transaction.isReadOnly()) {
				count(Counts::committed);
			}
		}

	}

}
