package io.github.shardtenancy.spi;

import java.util.List;

import io.github.shardtenancy.MoveStatus;

/**
 * Told about the protocol's events as they happen: what a metrics binder (such as the one in
 * {@code hibernate-shard-tenancy-micrometer}) or other operations tooling needs and cannot read from a counter
 * snapshot ({@link io.github.shardtenancy.RouterStats}).
 *
 * <p>Observers are added to a tenancy ({@code ShardTenancy#addObserver}), which tells
 * all of them, in the order they were added; adding one never replaces another. The router, the retry that
 * invalidates its entries and the movers that update it report to all of them. Every method has a
 * no-op default, and {@link #NONE} is what a router without observers reports to. {@link #composite(List)} combines
 * observers into one.
 *
 * <p>Contract for implementations: methods are called on the thread where the event happened (a request thread, the
 * mover's thread), possibly from many threads at once, so they must be thread-safe, fast and must not throw. The
 * callers pass values they already hold (no allocation on their side); durations are in nanoseconds. No tenant id is
 * passed (tenants are too many to be a metric dimension), except in the move's status of
 * {@link #moveStepRecorded(MoveStatus)}.
 */
public interface ShardTenancyObserver {

	/** Observes nothing. */
	ShardTenancyObserver NONE = new ShardTenancyObserver() {
	};

	/**
	 * Combines observers into one that tells each of them every event, in list order. An observer that throws
	 * (breaking the contract) does not keep the others from being told: its exception is logged and swallowed, so
	 * that observing never fails the work observed.
	 * @param observers the observers; never {@code null}, no element {@code null}; copied
	 * @return {@link #NONE} for an empty list, the only element for a list of one, else an immutable, thread-safe
	 * composite; never {@code null}
	 * @throws NullPointerException if the list or an element is {@code null}
	 */
	static ShardTenancyObserver composite(List<? extends ShardTenancyObserver> observers) {
		List<ShardTenancyObserver> copy = List.copyOf(observers);
		if (copy.isEmpty()) {
			return NONE;
		}
		return copy.size() == 1 ? copy.get(0) : new CompositeObserver(copy);
	}

	/**
	 * A shard fence rejected work (seen by the retry layer, once per rejected attempt).
	 * @param shardId the shard that rejected it
	 * @param reason the fence's reason ({@code MOVED}, {@code STALE}, {@code FROZEN}, ...; see
	 * {@link io.github.shardtenancy.retry.FenceRejection})
	 */
	default void fenceRejected(String shardId, String reason) {
	}

	/** A failed attempt (a fence rejection or a serialization failure) is about to be retried. */
	default void retried() {
	}

	/** The retry budget ran out: the caller gets {@link io.github.shardtenancy.RetriesExhaustedException}. */
	default void retriesExhausted() {
	}

	/**
	 * The router read one entry from the directory on a cache miss.
	 * @param nanos how long the read took, in nanoseconds
	 * @param found whether the directory had an entry for the tenant
	 */
	default void directoryLookup(long nanos, boolean found) {
	}

	/**
	 * A move flipped the tenant to its new shard (the move is complete for routing; the source may still be cleaned
	 * later).
	 * @param mover {@code "basic"} (a stop-the-world move, {@link io.github.shardtenancy.MoveSettings#capture()}
	 * off) or {@code "online"} (capture on)
	 * @param sourceShardId the shard the tenant left
	 * @param targetShardId the shard it lives on now
	 * @param totalNanos from the start of the move to the flip, in nanoseconds
	 * @param freezeNanos how long the tenant's writes were refused (freeze to flip), in nanoseconds
	 */
	default void moveFlipped(String mover, String sourceShardId, String targetShardId, long totalNanos,
			long freezeNanos) {
	}

	/**
	 * A move recorded a step in the move log ({@link io.github.shardtenancy.MoveStep#PLANNED} when it was recorded,
	 * then each step after it, {@link io.github.shardtenancy.MoveStep#ABORTED} however it was aborted), on the thread
	 * running the move, before the move's {@link MoveHook} is called. Moves are few, so the status names the tenant;
	 * an observer that feeds metrics must still keep it out of meter tags.
	 * @param move the move as just recorded (its step, {@code frozenAt}, {@code flippedAt}, ...); never {@code null}
	 */
	default void moveStepRecorded(MoveStatus move) {
	}

}
