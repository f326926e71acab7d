package io.github.shardtenancy.retry;

import java.lang.reflect.UndeclaredThrowableException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.function.Supplier;

import io.github.shardtenancy.RetriesExhaustedException;
import io.github.shardtenancy.ShardTenancyException;
import io.github.shardtenancy.UnsafeToRerunException;
import io.github.shardtenancy.spi.ShardTenancyObserver;

/**
 * Runs a unit of tenant work (a whole transaction) and runs it again when the shard fence rejected it, without any
 * framework: the retry for applications on plain Hibernate.
 *
 * <pre>{@code
 * ShardTenancyRetry retry = new ShardTenancyRetry(router::invalidate, RetrySettings.defaults(), router.observer());
 * Order order = TenantContext.callAs("acme", () -> retry.execute(() -> sessionFactory.fromTransaction(session -> {
 *     Order o = new Order(...);
 *     session.persist(o);
 *     return o;
 * })));
 * }</pre>
 *
 * <p>After each failed attempt the failure is classified as {@link RetryAttempts} describes: a fence rejection
 * invalidates the rejected tenant's route (through the {@link RouteInvalidation} given at construction) and the work
 * runs again after a backoff ({@link RetrySettings#delayBeforeRetry(int)}), within the budget of
 * {@link RetrySettings}; a shard that could not be reached and (optionally) a serialization failure are retried
 * without invalidating anything; anything else is not retried. When the budget runs out,
 * {@link RetriesExhaustedException} is thrown.
 *
 * <p>Each attempt must be a complete transaction of its own (a new session, a new persistence context): entities
 * loaded in a failed attempt must not be reused, and side effects outside the database must be idempotent or happen
 * after the commit. An attempt is not run again once work independent of its own transaction committed inside it (an
 * earlier transaction of a unit that runs several, an auto-commit statement on a routed connection): that would
 * repeat the committed work, so {@link UnsafeToRerunException} is thrown instead, unless this retry is
 * {@linkplain #safeToRerun() safe to re-run}. Without a framework, the commits seen are those of the library's
 * connection layer ({@link CommittedWork}): auto-commit statements and commits on the connections of the
 * tenant-routing {@code DataSource}. The commit of a Hibernate session's own transaction is not recorded, so a unit of
 * work that commits several Hibernate transactions in sequence is run again whole; keep such a unit to one
 * transaction, or make its earlier transactions idempotent.
 *
 * <p>Only the outermost call retries: a call made while another retried unit of work runs on the same thread (this
 * class or the Spring Boot module's retry) runs its work exactly once and lets its failure propagate unchanged, so
 * nested calls do not multiply the attempts.
 *
 * <p>Backoff waits put the calling thread to sleep. If the thread is interrupted while it waits, the retry stops:
 * the interrupt flag is set again and the failure of the last attempt is thrown as it was.
 *
 * <p>Thread-safe: immutable; one instance serves all threads, and the state of a call lives on the calling thread.
 */
public final class ShardTenancyRetry {

	private final RouteInvalidation routes;

	private final RetrySettings settings;

	private final ShardTenancyObserver observer;

	private final boolean safeToRerun;

	/**
	 * Creates a retry that does not run an attempt again once independent work committed inside it.
	 * @param routes invalidates the route of a rejected tenant before the work runs again (the router:
	 * {@code router::invalidate}); never {@code null}
	 * @param settings the budget and backoff; never {@code null}
	 * @param observer told about every fence rejection, retry and exhaustion (the router's observer); never
	 * {@code null} ({@link ShardTenancyObserver#NONE} to tell nobody)
	 * @throws NullPointerException if an argument is {@code null}
	 */
	public ShardTenancyRetry(RouteInvalidation routes, RetrySettings settings, ShardTenancyObserver observer) {
		this(routes, settings, observer, false);
	}

	private ShardTenancyRetry(RouteInvalidation routes, RetrySettings settings, ShardTenancyObserver observer,
			boolean safeToRerun) {
		this.routes = Objects.requireNonNull(routes, "routes");
		this.settings = Objects.requireNonNull(settings, "settings");
		this.observer = Objects.requireNonNull(observer, "observer");
		this.safeToRerun = safeToRerun;
	}

	/**
	 * The same retry, for work that is safe to run again even when work independent of its own transaction committed
	 * inside a rejected attempt (that work is then repeated once per attempt).
	 * @return a retry with the same routes, settings and observer that re-runs such work; never {@code null}
	 */
	public ShardTenancyRetry safeToRerun() {
		return this.safeToRerun ? this
				: new ShardTenancyRetry(this.routes, this.settings, this.observer, true);
	}

	/** @return whether this retry runs work again after independent work committed inside a rejected attempt */
	public boolean isSafeToRerun() {
		return this.safeToRerun;
	}

	/** @return the settings this retry runs with; never {@code null} */
	public RetrySettings settings() {
		return this.settings;
	}

	/**
	 * @return whether a call on this thread would run its work only once, because a retried unit of work is already
	 * running further up the thread's stack
	 */
	public static boolean isNested() {
		return RetryAttempts.inProgress();
	}

	/**
	 * Runs work, running it again after a retryable failure as described in the class documentation; checked
	 * exceptions of the work reach the caller unchanged.
	 * @param work the unit of work, one complete transaction per call; never {@code null}
	 * @param <T> the result type
	 * @return what the successful attempt returned, possibly {@code null}
	 * @throws RetriesExhaustedException if every attempt the budget allowed failed retryably
	 * @throws UnsafeToRerunException if an attempt failed retryably after work independent of its own transaction
	 * committed inside it, and this retry is not {@linkplain #safeToRerun() safe to re-run}
	 * @throws ShardTenancyException the library's typed error found in the cause chain of a failure that is not
	 * retried (a {@link io.github.shardtenancy.ShardConnectionLostException} if the chain reports a lost connection)
	 * @throws Exception the failure itself if it is not retried and holds no library error, or the last failure if
	 * the thread was interrupted during a backoff
	 * @throws NullPointerException if {@code work} is {@code null}
	 */
	public <T> T call(Callable<T> work) throws Exception {
		Objects.requireNonNull(work, "work");
		if (RetryAttempts.inProgress()) {
			return work.call();
		}
		try (RetryAttempts attempts = RetryAttempts.begin(this.settings, this.routes, this.observer,
				() -> this.safeToRerun)) {
			while (true) {
				try {
					return attempts.attempt(work::call);
				}
				catch (Exception ex) {
					if (!attempts.shouldRetry(ex)) {
						throw asException(attempts.failure());
					}
					if (!backOff(attempts.nextDelay())) {
						throw ex;
					}
				}
			}
		}
	}

	/**
	 * Runs work, running it again after a retryable failure; see {@link #call(Callable)}.
	 * @param work the unit of work; never {@code null}
	 * @param <T> the result type
	 * @return what the successful attempt returned, possibly {@code null}
	 * @throws RetriesExhaustedException if every attempt the budget allowed failed retryably
	 * @throws UnsafeToRerunException if an attempt failed retryably after independent work committed inside it, and
	 * this retry is not {@linkplain #safeToRerun() safe to re-run}
	 * @throws ShardTenancyException the library's typed error found in a non-retryable failure's cause chain
	 * @throws RuntimeException the failure itself if it is not retried and holds no library error
	 * @throws UndeclaredThrowableException wrapping a checked exception the work threw (sneakily)
	 * @throws NullPointerException if {@code work} is {@code null}
	 */
	public <T> T execute(Supplier<T> work) {
		Objects.requireNonNull(work, "work");
		try {
			return call(work::get);
		}
		catch (RuntimeException ex) {
			throw ex;
		}
		catch (Exception ex) {
			throw new UndeclaredThrowableException(ex);
		}
	}

	/**
	 * Runs work, running it again after a retryable failure; see {@link #call(Callable)}.
	 * @param work the unit of work; never {@code null}
	 * @throws RetriesExhaustedException if every attempt the budget allowed failed retryably
	 * @throws UnsafeToRerunException if an attempt failed retryably after independent work committed inside it, and
	 * this retry is not {@linkplain #safeToRerun() safe to re-run}
	 * @throws ShardTenancyException the library's typed error found in a non-retryable failure's cause chain
	 * @throws RuntimeException the failure itself if it is not retried and holds no library error
	 * @throws NullPointerException if {@code work} is {@code null}
	 */
	public void run(Runnable work) {
		Objects.requireNonNull(work, "work");
		execute(() -> {
			work.run();
			return null;
		});
	}

	/** @return whether the whole delay passed; {@code false} if the thread was interrupted (flag set again) */
	private static boolean backOff(Duration delay) {
		try {
			Thread.sleep(delay.toMillis(), (int) (delay.toNanos() % 1_000_000));
			return true;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	private static Exception asException(Throwable failure) {
		if (failure instanceof Exception ex) {
			return ex;
		}
		if (failure instanceof Error error) {
			throw error;
		}
		return new UndeclaredThrowableException(failure);
	}

}
