package io.github.shardtenancy.retry;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BooleanSupplier;

import io.github.shardtenancy.RerunMismatchException;
import io.github.shardtenancy.RetriesExhaustedException;
import io.github.shardtenancy.ShardConnectionLostException;
import io.github.shardtenancy.ShardTenancyException;
import io.github.shardtenancy.ShardUnavailableException;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.UnsafeToRerunException;
import io.github.shardtenancy.spi.ShardTenancyObserver;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The attempts of one retried unit of work: decides after each failed attempt whether the work may run again, how
 * long to wait before it does, and what the caller gets when it stops. It is the retry's policy, shared by
 * {@link ShardTenancyRetry} (its own loop) and by integrations that drive the loop with a framework's retry support
 * (the Spring Boot module's {@code RetryTemplate}); they differ only in who loops and sleeps.
 *
 * <p>Classification of a failure (the whole cause chain is searched, whatever exception types wrap it):
 * <ul>
 * <li>a shard fence rejection ({@link FenceRejection}): the {@link RouteInvalidation route} of exactly the rejected
 * tenant is invalidated and the work may run again. A FROZEN or INCOMING rejection (a move in progress) is retried
 * until {@link RetrySettings#freezeWait()} has passed since the attempts began (and at least up to
 * {@link RetrySettings#maxAttempts()} attempts), without using up the attempt budget; any other reason up to
 * {@link RetrySettings#maxAttempts()} attempts;</li>
 * <li>a shard that could not be reached ({@link ShardUnavailableException}: no connection could be borrowed, so
 * nothing ran): up to {@link RetrySettings#maxAttempts()} attempts, without invalidating anything (the route is
 * right; reading the directory again would only load it);</li>
 * <li>a genuine serialization failure (SQLSTATE 40001 without the fence marker): up to
 * {@link RetrySettings#maxAttempts()} attempts if {@link RetrySettings#serializationFailures()}, without invalidating
 * anything;</li>
 * <li>anything else, a lost connection included: not retried (a connection lost during the commit leaves the outcome
 * unknown).</li>
 * </ul>
 *
 * <p>Rerun safety: an attempt run through {@link #attempt(Attempt)} is watched with {@link CommittedWork}. When it
 * failed retryably after work independent of its own transaction committed inside it, it is not run again (that
 * would repeat the committed work) unless the work was declared safe to re-run; the caller then gets
 * {@link UnsafeToRerunException}.
 *
 * <p>State the body changed outside the database: a re-run runs the body again with the objects the failed attempt
 * left behind (its arguments, fields of the caller). Whatever the body {@linkplain #onRollback(Runnable) registered}
 * to undo is undone when the attempt fails, before the next attempt and before the failure reaches the caller
 * (the library registers there the ids it handed out in the attempt: {@code ShardTenancy.assignId}). And the
 * symptom of state that was not undone is checked ({@link RetrySettings#rerunCheck()}): an {@code UPDATE} that
 * matched no row in a re-run, of a table into which a failed attempt had issued more {@code INSERT}s than the re-run
 * has so far (counting only the failed attempt's INSERTs not preceded by an {@code UPDATE} of that table that matched
 * no row, the shape of an upsert), is what a body does when the failed attempt set the id of the object it saves:
 * that re-run would commit without writing the row. It fails the
 * attempt with {@link RerunMismatchException} ({@link RetrySettings.RerunCheck#FAIL}, the default), or is logged at
 * WARN ({@link RetrySettings.RerunCheck#WARN}); the observer is told either way
 * ({@link ShardTenancyObserver#rerunMismatch}). Statements of the library's connections are seen (Hibernate's,
 * {@code JdbcTemplate}'s, plain JDBC on the tenant-routing {@code DataSource}); batches are not.
 *
 * <p>What the caller gets when the attempts stop ({@link #failure()}): {@link RetriesExhaustedException} when the
 * budget ran out (its cause is the last rejection's {@link java.sql.SQLException}); {@link UnsafeToRerunException};
 * for a failure that is not retried, the library's {@link ShardTenancyException} found in its cause chain, else a
 * {@link ShardConnectionLostException} if the chain reports a lost connection, else the failure itself. Where the
 * exception differs from the failure the attempt ended with, that failure is attached as a suppressed exception.
 *
 * <p>The observer is told about each fence rejection, each retry and each exhaustion, and it observes the unit of work
 * ({@link ShardTenancyObserver#retryStarted}, from {@link #begin} to {@link #close()}) and each attempt
 * ({@link ShardTenancyObserver#attemptStarted}, around {@link #attempt(Attempt)}), with the shard the attempt was
 * routed to ({@link #routed(String)}).
 *
 * <p>Logging: a fence rejection that is retried is logged at DEBUG; one that ends the attempts (the budget ran out, or
 * the attempt may not run again) once at WARN, naming the tenant, the shard, the reason and the directory versions.
 *
 * <p>Only the outermost unit of work retries: {@link #begin} marks the calling thread until {@link #close()}, and
 * {@link #inProgress()} tells nested callers to run their work once.
 *
 * <p>Not thread-safe: an instance belongs to the thread that began it, for one unit of work.
 */
public final class RetryAttempts implements AutoCloseable {

	private static final Logger log = LoggerFactory.getLogger(RetryAttempts.class);

	private static final ThreadLocal<RetryAttempts> CURRENT = new ThreadLocal<>();

	/**
	 * One attempt of a unit of work.
	 * @param <T> the result type
	 * @param <E> the checked exception it may throw
	 */
	@FunctionalInterface
	public interface Attempt<T, E extends Throwable> {

		/**
		 * @return the result, possibly {@code null}
		 * @throws E if the attempt fails
		 */
		T run() throws E;

	}

	private enum Outcome {

		RETRYING, EXHAUSTED, NOT_RETRYABLE, UNSAFE_TO_RERUN

	}

	private final RetrySettings settings;

	private final RouteInvalidation routes;

	private final ShardTenancyObserver observer;

	private final BooleanSupplier safeToRerun;

	private final long startNanos = System.nanoTime();

	private int attempts;

	/** Attempts rejected because the tenant was being frozen or flipped; they do not use up the attempt budget. */
	private int moveWaits;

	private int retries;

	private Throwable last;

	private FenceRejection lastRejection;

	private Outcome outcome = Outcome.RETRYING;

	/** Whether the last attempt returned normally. */
	private boolean succeeded;

	/** The scope of the whole unit of work. */
	private final ShardTenancyObserver.Scope scope;

	/** The scope of the attempt running now, or {@code null} between attempts. */
	private ShardTenancyObserver.Scope attemptScope;

	/** What committed inside the last failed attempt, independently of its own transaction. */
	private List<String> committed = List.of();

	/** What the running attempt registered to undo if it fails, the last registered first; {@code null} for nothing. */
	private @Nullable ArrayDeque<Runnable> undo;

	/** Per table, the INSERTs the running attempt issued. */
	private @Nullable HashMap<String, Integer> inserts;

	/** Per table, the INSERTs the running attempt issued before any UPDATE of the table matched no row. */
	private @Nullable HashMap<String, Integer> blindInserts;

	/** Tables in which an UPDATE of the running attempt matched no row. */
	private @Nullable HashSet<String> emptyUpdates;

	/** Per table, the most {@link #blindInserts} of a failed attempt; {@code null} for none. */
	private @Nullable HashMap<String, Integer> suspects;

	private RetryAttempts(RetrySettings settings, RouteInvalidation routes, ShardTenancyObserver observer,
			BooleanSupplier safeToRerun) {
		this.settings = Objects.requireNonNull(settings, "settings");
		this.routes = Objects.requireNonNull(routes, "routes");
		this.observer = Objects.requireNonNull(observer, "observer");
		this.safeToRerun = Objects.requireNonNull(safeToRerun, "safeToRerun");
		this.scope = observer.retryStarted(TenantContext.current());
	}

	/**
	 * Begins the attempts of a unit of work on the calling thread, which is marked as retrying until
	 * {@link #close()}.
	 * @param settings the budget and backoff; never {@code null}
	 * @param routes invalidates the route of a rejected tenant; never {@code null}
	 * @param observer told about rejections, retries and exhaustion; never {@code null}
	 * ({@link ShardTenancyObserver#NONE} to tell nobody)
	 * @param safeToRerun asked only when an attempt that committed independent work failed retryably: whether the
	 * work may run again anyway; never {@code null}
	 * @return the attempts; close them on the same thread when the unit of work ends; never {@code null}
	 * @throws NullPointerException if an argument is {@code null}
	 * @throws IllegalStateException if attempts are already in progress on this thread (check {@link #inProgress()}
	 * first and run nested work once)
	 */
	public static RetryAttempts begin(RetrySettings settings, RouteInvalidation routes, ShardTenancyObserver observer,
			BooleanSupplier safeToRerun) {
		if (CURRENT.get() != null) {
			throw new IllegalStateException("A retried unit of work is already running on this thread; nested work "
					+ "must run once (check RetryAttempts.inProgress())");
		}
		RetryAttempts attempts = new RetryAttempts(settings, routes, observer, safeToRerun);
		CURRENT.set(attempts);
		return attempts;
	}

	/**
	 * @return whether a retried unit of work is running on the calling thread: work nested in it must run exactly
	 * once, since only the outermost unit retries
	 */
	public static boolean inProgress() {
		return CURRENT.get() != null;
	}

	/**
	 * Tells the attempt running on the calling thread, if any, that it was routed to a shard (the library's connection
	 * layer calls this when it borrows a shard connection); the attempt's observer scope records the shard. Does
	 * nothing when no attempt runs on the thread.
	 * @param shardId the shard whose connection was borrowed; never {@code null}
	 */
	public static void routed(String shardId) {
		RetryAttempts attempts = CURRENT.get();
		if (attempts != null && attempts.attemptScope != null) {
			attempts.attemptScope.routed(shardId);
		}
	}

	/**
	 * Registers an action that undoes a change the running attempt made outside the database (an id set on an
	 * argument before its INSERT, a flag set on a DTO, an element taken from a list), so that a re-run finds the
	 * objects as the failed attempt found them. The actions run when the attempt fails (its transaction was rolled
	 * back or never committed), in the reverse order of their registration, before the next attempt begins and before
	 * a failure that is not retried reaches the caller; a failing action does not stop the others and is attached to
	 * the attempt's failure as a suppressed exception. When the attempt succeeds they are dropped.
	 *
	 * <pre>{@code
	 * owner.setStatus(SUBMITTED);
	 * RetryAttempts.onRollback(() -> owner.setStatus(DRAFT));
	 * }</pre>
	 *
	 * <p>Outside a retried unit of work (no retry runs on the calling thread: the automatic retry is switched off, or
	 * the code runs on another thread) nothing is registered: nothing would run the body again.
	 * @param action what undoes the change; runs at most once, on the calling thread; never {@code null}
	 * @return whether it was registered: a retried attempt runs on the calling thread
	 * @throws NullPointerException if {@code action} is {@code null}
	 */
	public static boolean onRollback(Runnable action) {
		Objects.requireNonNull(action, "action");
		RetryAttempts attempts = CURRENT.get();
		if (attempts == null || attempts.attemptScope == null) {
			return false;
		}
		ArrayDeque<Runnable> undo = attempts.undo;
		if (undo == null) {
			undo = new ArrayDeque<>(4);
			attempts.undo = undo;
		}
		undo.push(action);
		return true;
	}

	/**
	 * Tells the attempt running on the calling thread, if any, that an {@code INSERT} into a table is about to run
	 * (the library's connection layer calls this before the statement, so an INSERT the fence then rejects counts).
	 * Does nothing when no attempt runs on the thread.
	 * @param table the table, lower case, without schema; never {@code null}
	 */
	public static void inserting(String table) {
		RetryAttempts attempts = CURRENT.get();
		if (attempts == null || attempts.attemptScope == null) {
			return;
		}
		if (attempts.inserts == null) {
			attempts.inserts = new HashMap<>(4);
		}
		attempts.inserts.merge(table, 1, Integer::sum);
		if (attempts.emptyUpdates != null && attempts.emptyUpdates.contains(table)) {
			return; // an upsert: the body looked for the row first and did not find it
		}
		if (attempts.blindInserts == null) {
			attempts.blindInserts = new HashMap<>(4);
		}
		attempts.blindInserts.merge(table, 1, Integer::sum);
	}

	/**
	 * Tells the attempt running on the calling thread, if any, that an {@code UPDATE} of a table matched no row (see
	 * the class documentation: in a re-run, after a failed attempt inserted into the table, that is a mismatch). Does
	 * nothing when no attempt runs on the thread.
	 * @param table the table, lower case, without schema; never {@code null}
	 * @param sql the statement, for the report; never {@code null}
	 * @throws RerunMismatchException if it is a mismatch and {@link RetrySettings#rerunCheck()} is
	 * {@link RetrySettings.RerunCheck#FAIL}
	 */
	public static void updatedNothing(String table, String sql) {
		RetryAttempts attempts = CURRENT.get();
		if (attempts == null || attempts.attemptScope == null) {
			return;
		}
		if (attempts.emptyUpdates == null) {
			attempts.emptyUpdates = new HashSet<>(4);
		}
		attempts.emptyUpdates.add(table);
		// A mismatch only while this attempt inserted into the table fewer times than a failed one did blind: a body
		// that builds its objects anew inserts them again, and its later UPDATE that matches nothing is its own.
		int suspected = attempts.suspects == null ? 0 : attempts.suspects.getOrDefault(table, 0);
		int inserted = attempts.inserts == null ? 0 : attempts.inserts.getOrDefault(table, 0);
		if (suspected > inserted) {
			attempts.mismatch(table, sql);
		}
	}

	private void mismatch(String table, String sql) {
		RetrySettings.RerunCheck check = this.settings.rerunCheck();
		if (check == RetrySettings.RerunCheck.OFF) {
			return;
		}
		String tenant = TenantContext.current();
		this.observer.rerunMismatch(tenant, table);
		if (check == RetrySettings.RerunCheck.FAIL) {
			throw new RerunMismatchException(tenant, table, this.attempts + 1, sql);
		}
		// Not the exception's message: that one says nothing was committed, and this attempt goes on.
		String statement = sql.strip();
		log.warn("Attempt {} of a unit of work for tenant '{}' updated no row of table '{}', into which a failed attempt "
				+ "had inserted ({}): the body most likely re-used an object whose id the failed attempt set before its "
				+ "INSERT, and this attempt goes on, so it may commit without writing the row "
				+ "(shard-tenancy.retry.rerun-check=warn; 'fail' rolls it back with RerunMismatchException). Undo such "
				+ "changes with RetryAttempts.onRollback(...) or take ids with ShardTenancy.assignId/assignIntId (see "
				+ "docs/retry.md, \"What re-runs\")", this.attempts + 1, tenant, table,
				statement.length() <= 120 ? statement : statement.substring(0, 120) + "...");
	}

	/**
	 * Runs one attempt, watching what commits inside it ({@link CommittedWork}); if it fails, remembers that for the
	 * following {@link #shouldRetry(Throwable)} and rethrows the failure unchanged.
	 * @param work the attempt; never {@code null}
	 * @param <T> the result type
	 * @param <E> the checked exception the attempt may throw
	 * @return what the attempt returned, possibly {@code null}
	 * @throws E whatever the attempt threw
	 */
	public <T, E extends Throwable> T attempt(Attempt<T, E> work) throws E {
		this.succeeded = false;
		ShardTenancyObserver.Scope attemptScope = this.observer.attemptStarted(TenantContext.current(),
				this.attempts + 1);
		this.attemptScope = attemptScope;
		try (attemptScope; CommittedWork.Watch watch = CommittedWork.watch()) {
			try {
				T result = work.run();
				this.succeeded = true;
				attemptScope.outcome("success", null, null);
				return result;
			}
			catch (Throwable ex) {
				undo(ex);
				this.committed = watch.committed();
				FenceRejection rejection = FenceRejection.find(ex).orElse(null);
				if (rejection != null) {
					attemptScope.routed(rejection.shardId());
					attemptScope.outcome("rejected", rejection.reason(), ex);
				}
				else {
					attemptScope.outcome("error", null, ex);
				}
				throw ex;
			}
		}
		finally {
			this.attemptScope = null;
			this.undo = null;
			this.emptyUpdates = null;
			this.inserts = null;
			this.blindInserts = null;
		}
	}

	/** Runs the failed attempt's undo actions, the last registered first, and remembers the tables it inserted into. */
	private void undo(Throwable failure) {
		HashMap<String, Integer> blind = this.blindInserts;
		if (blind != null) {
			if (this.suspects == null) {
				this.suspects = new HashMap<>(blind);
			}
			else {
				blind.forEach((table, count) -> this.suspects.merge(table, count, Math::max));
			}
		}
		ArrayDeque<Runnable> actions = this.undo;
		this.undo = null;
		if (actions == null) {
			return;
		}
		for (Runnable action; (action = actions.poll()) != null;) {
			try {
				action.run();
			}
			catch (RuntimeException | Error ex) {
				failure.addSuppressed(ex);
			}
		}
	}

	/**
	 * Counts a failed attempt, classifies its failure (see the class documentation), invalidates the rejected
	 * tenant's route and tells the observer.
	 * @param failure what the attempt failed with; never {@code null}
	 * @return whether the work may run again (after {@link #nextDelay()}); once {@code false}, {@link #failure()}
	 * says what the caller gets
	 */
	public boolean shouldRetry(Throwable failure) {
		this.attempts++;
		this.last = Objects.requireNonNull(failure, "failure");
		Optional<FenceRejection> found = FenceRejection.find(failure);
		if (found.isPresent()) {
			FenceRejection rejection = found.get();
			this.lastRejection = rejection;
			this.observer.fenceRejected(rejection.shardId(), rejection.reason());
			this.routes.invalidate(rejection.tenantId());
			boolean retry;
			if (rejection.isMoveInProgress()) {
				// Waiting out a freeze is bounded by freeze-wait, not by the attempt budget, so that the one stale hop
				// that follows every flip still finds attempts left. Past freeze-wait every attempt counts.
				this.moveWaits++;
				retry = !freezeWaitElapsed() || this.attempts < this.settings.maxAttempts();
			}
			else {
				retry = this.attempts - this.moveWaits < this.settings.maxAttempts();
			}
			boolean retrying = decide(retry);
			if (retrying) {
				log.debug("Attempt {} of tenant '{}' rejected on shard '{}' ({}, directory version seen {}, required {}); "
						+ "retrying", this.attempts, rejection.tenantId(), rejection.shardId(), rejection.reason(),
						rejection.seenVersion(), rejection.requiredVersion());
			}
			else {
				// The one line a rejection that reaches the caller is logged with: the library logs what Hibernate
				// saw of a fence rejection at DEBUG only.
				log.warn("Attempt {} of tenant '{}' rejected on shard '{}' ({}, directory version seen {}, required {}); "
						+ "giving up ({})", this.attempts, rejection.tenantId(), rejection.shardId(), rejection.reason(),
						rejection.seenVersion(), rejection.requiredVersion(),
						(this.outcome == Outcome.UNSAFE_TO_RERUN) ? "work committed inside the attempt" : "retries exhausted");
			}
			return retrying;
		}
		this.lastRejection = null;
		Optional<ShardUnavailableException> unreachable = find(failure, ShardUnavailableException.class);
		if (unreachable.isPresent()) {
			// Nothing ran (no connection was borrowed) and the route is right: back off, never invalidate, so that a
			// shard that is down does not turn every caller into a directory reader.
			log.debug("Attempt {} found shard '{}' unavailable; {}", this.attempts, unreachable.get().shardId(),
					withinBudget() ? "retrying" : "giving up");
			return decide(withinBudget());
		}
		if (this.settings.serializationFailures() && FenceRejection.findSerializationFailure(failure).isPresent()) {
			log.debug("Attempt {} failed with a serialization failure; {}", this.attempts,
					withinBudget() ? "retrying" : "giving up");
			return decide(withinBudget());
		}
		this.outcome = Outcome.NOT_RETRYABLE;
		return false;
	}

	/**
	 * The delay before the next attempt ({@link RetrySettings#delayBeforeRetry(int)}); each call counts one retry.
	 * @return how long to wait; never {@code null}, never negative
	 */
	public Duration nextDelay() {
		this.retries++;
		return this.settings.delayBeforeRetry(this.retries);
	}

	/** @return how many attempts failed so far */
	public int attempts() {
		return this.attempts;
	}

	/**
	 * What the caller gets once {@link #shouldRetry(Throwable)} said no (see the class documentation).
	 * @return the exception to throw; never {@code null}
	 * @throws IllegalStateException if no attempt failed yet
	 */
	public Throwable failure() {
		Throwable lastFailure = this.last;
		if (lastFailure == null) {
			throw new IllegalStateException("No attempt failed");
		}
		if (this.outcome == Outcome.UNSAFE_TO_RERUN) {
			return unsafeToRerun(lastFailure);
		}
		if (this.outcome == Outcome.EXHAUSTED) {
			return exhausted(lastFailure);
		}
		ShardTenancyException typed = find(lastFailure, ShardTenancyException.class).orElse(null);
		if (typed != null) {
			return typed;
		}
		if (ShardConnectionLostException.isConnectionFailure(lastFailure)) {
			String tenant = TenantContext.current();
			RouteInvalidation.Route route = cachedRoute(tenant);
			return new ShardConnectionLostException(tenant, route != null ? route.shardId() : null,
					route != null ? route.directoryVersion() : -1, lastFailure);
		}
		return lastFailure;
	}

	/**
	 * Ends the attempts: the calling thread is no longer marked as retrying, and the observer's scope of the unit of
	 * work is closed with its outcome.
	 */
	@Override
	public void close() {
		try {
			if (this.succeeded) {
				this.scope.outcome("success", null, null);
			}
			else if (this.outcome != Outcome.RETRYING) {
				this.scope.outcome(this.outcome.name().toLowerCase(java.util.Locale.ROOT),
						(this.lastRejection != null) ? this.lastRejection.reason() : null, this.last);
			}
			this.scope.close();
		}
		finally {
			if (CURRENT.get() == this) {
				CURRENT.remove();
			}
		}
	}

	private boolean withinBudget() {
		return this.attempts < this.settings.maxAttempts();
	}

	private boolean decide(boolean retry) {
		if (!this.committed.isEmpty() && !this.safeToRerun.getAsBoolean()) {
			// Running the attempt again would repeat what it already committed; the caller has to decide.
			log.debug("Attempt {} failed retryably after independent work committed inside it ({}); not running it "
					+ "again", this.attempts, this.committed);
			this.outcome = Outcome.UNSAFE_TO_RERUN;
			return false;
		}
		this.outcome = retry ? Outcome.RETRYING : Outcome.EXHAUSTED;
		if (retry) {
			this.observer.retried();
		}
		else {
			this.observer.retriesExhausted();
		}
		return retry;
	}

	private boolean freezeWaitElapsed() {
		return System.nanoTime() - this.startNanos >= this.settings.freezeWait().toNanos();
	}

	private RetriesExhaustedException exhausted(Throwable lastFailure) {
		RetriesExhaustedException exhausted;
		Optional<ShardUnavailableException> unreachable = find(lastFailure, ShardUnavailableException.class);
		if (this.lastRejection != null) {
			exhausted = new RetriesExhaustedException(this.lastRejection.tenantId(), this.lastRejection.shardId(),
					this.lastRejection.seenVersion(), this.attempts, this.lastRejection.sqlException());
		}
		else if (unreachable.isPresent()) {
			exhausted = new RetriesExhaustedException(unreachable.get().tenantId(), unreachable.get().shardId(),
					unreachable.get().directoryVersion(), this.attempts, unreachable.get());
		}
		else {
			exhausted = new RetriesExhaustedException(TenantContext.current(), null, -1, this.attempts,
					FenceRejection.findSerializationFailure(lastFailure).orElse(null));
		}
		// The cause is the database's own rejection, whose message names tenant, shard and versions; the exception
		// it surfaced in (a framework's or Hibernate's wrapper) is kept as a suppressed exception.
		if (exhausted.getCause() != lastFailure) {
			exhausted.addSuppressed(lastFailure);
		}
		return exhausted;
	}

	private UnsafeToRerunException unsafeToRerun(Throwable lastFailure) {
		UnsafeToRerunException unsafe;
		Optional<ShardUnavailableException> unreachable = find(lastFailure, ShardUnavailableException.class);
		if (this.lastRejection != null) {
			unsafe = new UnsafeToRerunException(this.lastRejection.tenantId(), this.lastRejection.shardId(),
					this.lastRejection.seenVersion(), this.attempts, this.committed, this.lastRejection.sqlException());
		}
		else if (unreachable.isPresent()) {
			unsafe = new UnsafeToRerunException(unreachable.get().tenantId(), unreachable.get().shardId(),
					unreachable.get().directoryVersion(), this.attempts, this.committed, unreachable.get());
		}
		else {
			String tenant = TenantContext.current();
			RouteInvalidation.Route route = cachedRoute(tenant);
			unsafe = new UnsafeToRerunException(tenant, route != null ? route.shardId() : null,
					route != null ? route.directoryVersion() : -1, this.attempts, this.committed,
					FenceRejection.findSerializationFailure(lastFailure).map(Throwable.class::cast).orElse(lastFailure));
		}
		if (unsafe.getCause() != lastFailure) {
			unsafe.addSuppressed(lastFailure);
		}
		return unsafe;
	}

	private RouteInvalidation.Route cachedRoute(String tenant) {
		return tenant != null ? this.routes.cachedRoute(tenant).orElse(null) : null;
	}

	private static <E extends Throwable> Optional<E> find(Throwable failure, Class<E> type) {
		for (Throwable t = failure; t != null; t = (t.getCause() == t ? null : t.getCause())) {
			if (type.isInstance(t)) {
				return Optional.of(type.cast(t));
			}
		}
		return Optional.empty();
	}

}
