package io.github.shardtenancy.spi;

import java.util.List;

import io.github.shardtenancy.MoveStatus;
import org.jspecify.annotations.Nullable;

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
 * callers pass values they already hold (no allocation on their side); durations are in nanoseconds. The event
 * methods pass no tenant id (tenants are too many to be a metric dimension), except in the move's status of
 * {@link #moveStepRecorded(MoveStatus)}.
 *
 * <p>The scope methods ({@link #retryStarted}, {@link #attemptStarted}, {@link #moveStepStarted}) open a
 * {@link Scope} around a unit of work, for tracing (Micrometer Observation, in
 * {@code hibernate-shard-tenancy-micrometer}): they pass the tenant id, which a metrics implementation must not use as
 * a dimension unless the application chose to. A scope is opened and closed on the same thread, nested scopes close
 * before the scope that encloses them, and every scope opened is closed exactly once.
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
	 * What an observer is told while a unit of work it was told about runs, and when it ends: what became known
	 * (the shard), how it ended (an outcome and the failure, if any). Every method has a no-op default; an
	 * implementation must not throw. Used by one thread.
	 */
	interface Scope extends AutoCloseable {

		/** A scope that records nothing. */
		Scope NONE = new Scope() {
		};

		/**
		 * The work was routed to a shard (a connection of the shard was borrowed for it). Called once per connection
		 * borrowed; the last call wins.
		 * @param shardId the shard; never {@code null}
		 */
		default void routed(String shardId) {
		}

		/**
		 * How the work ended; called at most once, before {@link #close()}. A scope closed without an outcome ended
		 * in a way its caller could not name (an interrupted wait).
		 * @param outcome a value of a small fixed set, in lower case ({@code success}, {@code rejected},
		 * {@code error}, {@code exhausted}, ...; each scope method lists its own); never {@code null}
		 * @param reason a fence rejection's reason ({@code MOVED}, {@code FROZEN}, ...), or {@code null}
		 * @param failure what the work failed with, or {@code null}
		 */
		default void outcome(String outcome, String reason, Throwable failure) {
		}

		/** The work ended: the scope is closed (and whatever it measured is recorded). */
		@Override
		default void close() {
		}

	}

	/**
	 * A retried unit of work begins (the core's {@code ShardTenancyRetry}, the Spring Boot module's retry and its
	 * interceptor); its attempts ({@link #attemptStarted}) run inside this scope. Outcomes: {@code success},
	 * {@code exhausted} (the caller gets {@link io.github.shardtenancy.RetriesExhaustedException}),
	 * {@code unsafe_to_rerun}, {@code not_retryable} (the failure reaches the caller), or none if a backoff wait was
	 * interrupted.
	 * @param tenantId the tenant bound when the work began, or {@code null} if none was
	 * @return the scope to tell and close when the work ends; never {@code null}
	 */
	default Scope retryStarted(String tenantId) {
		return Scope.NONE;
	}

	/**
	 * One attempt of a retried unit of work begins (one routed transaction, typically). Outcomes: {@code success},
	 * {@code rejected} (a shard fence rejected it; the reason is given), {@code error} (any other failure).
	 * @param tenantId the tenant bound when the attempt began, or {@code null} if none was
	 * @param attempt the attempt's number, from 1
	 * @return the scope to tell and close when the attempt ends; never {@code null}
	 */
	default Scope attemptStarted(String tenantId, int attempt) {
		return Scope.NONE;
	}

	/**
	 * One step of a move begins, on the mover's thread. Outcomes: {@code success}, {@code error}.
	 * @param moveId the move's id
	 * @param tenantId the tenant being moved
	 * @param mover {@code "basic"} or {@code "online"} (see {@link #moveFlipped})
	 * @param step the step, in lower case: {@code mark}, {@code copy}, {@code catch_up}, {@code freeze},
	 * {@code final_catch_up}, {@code verify}, {@code flip}, {@code clean}
	 * @param sourceShardId the shard the tenant leaves
	 * @param targetShardId the shard it moves to
	 * @return the scope to tell and close when the step ends; never {@code null}
	 */
	default Scope moveStepStarted(String moveId, String tenantId, String mover, String step, String sourceShardId,
			String targetShardId) {
		return Scope.NONE;
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
	 * A re-run's {@code UPDATE} matched no row of a table into which a failed attempt had inserted (see
	 * {@link io.github.shardtenancy.RerunMismatchException}), told whether the check fails the attempt or only warns.
	 * @param tenantId the tenant bound, or {@code null}
	 * @param table the table, lower case
	 */
	default void rerunMismatch(@Nullable String tenantId, String table) {
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

	/**
	 * A dual read of a moving tenant ended ({@link io.github.shardtenancy.DualRead}), on the dual read's thread (or
	 * the caller's, for a comparison skipped at once). Not called for tenants that are not moving.
	 * @param name the query's name (a few fixed names chosen by the application); never {@code null}
	 * @param outcome {@code match}, {@code behind}, {@code mismatch}, {@code error} or {@code skipped}
	 * @param nanos time from the call to the outcome, in nanoseconds
	 */
	default void dualRead(String name, String outcome, long nanos) {
	}

}
