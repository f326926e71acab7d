package io.github.shardtenancy.boot.retry;

import java.lang.reflect.UndeclaredThrowableException;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import io.github.shardtenancy.RetriesExhaustedException;
import io.github.shardtenancy.ShardTenancyException;
import io.github.shardtenancy.UnsafeToRerunException;
import io.github.shardtenancy.retry.CommittedWork;
import io.github.shardtenancy.TenantRouter;
import io.github.shardtenancy.spi.ShardTenancyObserver;
import io.github.shardtenancy.retry.RetryAttempts;
import io.github.shardtenancy.retry.RetrySettings;
import io.github.shardtenancy.retry.RouteInvalidation;
import org.springframework.core.retry.RetryException;
import org.springframework.core.retry.RetryListener;
import org.springframework.core.retry.RetryPolicy;
import org.springframework.core.retry.RetryTemplate;
import org.springframework.core.retry.Retryable;
import org.springframework.core.retry.support.CompositeRetryListener;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.BackOffExecution;

/**
 * Runs a unit of tenant work (one transaction, typically) and runs it again when the shard fence rejected it: the
 * programmatic form of the automatic retry the auto-configuration puts around outermost {@code @Transactional}
 * methods and Spring Data repository calls.
 *
 * <pre>{@code
 * Order order = retry.execute(() -> transactionTemplate.execute(status -> orders.save(new Order(...))));
 * }</pre>
 *
 * <p>This is the Spring form of the core {@link io.github.shardtenancy.retry.ShardTenancyRetry}: Spring's
 * {@link RetryTemplate} runs the loop (and tells the {@link RetryListener}s), and the core's
 * {@link RetryAttempts} makes every decision: how a failure is classified (a shard fence rejection invalidates the
 * router's entry of exactly the rejected tenant and is retried, a FROZEN or INCOMING one until
 * {@link RetrySettings#freezeWait()} has passed; a shard that could not be reached, and a genuine serialization
 * failure if {@link RetrySettings#serializationFailures()}, are retried without invalidating anything; anything else is
 * not retried), the backoff between attempts ({@link RetrySettings#delayBeforeRetry(int)}), and what the caller gets
 * when the attempts stop. A failure that is not retried reaches the caller as the library's typed error found in its
 * cause chain (for example an {@link io.github.shardtenancy.UnknownTenantException} wrapped by Spring in a
 * {@code CannotCreateTransactionException}), as a {@link io.github.shardtenancy.ShardConnectionLostException} if the
 * connection to the shard was lost (a connection lost during the commit leaves the outcome unknown, so it is never
 * retried), or else as it was thrown.
 *
 * <p>An attempt is not run again, whatever the failure, once work independent of the attempt's own transaction
 * committed inside it: a {@code REQUIRES_NEW} transaction (with {@code @Transactional} or a
 * {@code TransactionTemplate}, on any transaction manager), a transaction that ended before the one that was
 * rejected (a body that runs several in sequence), an auto-commit statement. Running it again would repeat that
 * work, so {@link UnsafeToRerunException} (naming what committed) is thrown instead, unless the work was declared
 * safe to re-run ({@link #safeToRerun()}, {@link SafeToRerun}). Read-only transactions do not count, nor does the
 * commit of the attempt's own transaction (the last one to begin and commit when the failure is raised at or after
 * its commit). Commits are seen through a transaction execution listener the auto-configuration adds to every
 * transaction manager of the application.
 *
 * <p>When the budget runs out, {@link RetriesExhaustedException} is thrown; its cause is the last rejection's
 * {@link java.sql.SQLException} (whose message names the tenant, the shard and the directory versions), and the
 * exception the last attempt failed with (as Spring or Hibernate wrapped it) is attached as a suppressed exception.
 *
 * <p>Only the outermost boundary retries. If a transaction is already active on the calling thread, or another
 * retried unit of work (this class, or the core's {@code ShardTenancyRetry}) is running further up the same thread's
 * stack, the work runs exactly once and its failure propagates unchanged: a joined inner transaction cannot be
 * retried on its own (its connection and persistence context belong to the outer one), and nested boundaries must not
 * multiply the attempts.
 *
 * <p>Each attempt should open its own transaction (and so its own persistence context and shard connection); that is
 * the case when the work is, or calls, an outermost {@code @Transactional} method or a {@code TransactionTemplate}.
 *
 * <p>Listeners (Spring's {@link RetryListener}) see every retryable execution, retry and exhaustion.
 *
 * <p>Thread-safe: one instance serves all threads; the state of a call lives on the calling thread.
 */
public class ShardTenancyRetry {

	private final ShardTenancyObserver observer;

	private final RouteInvalidation routes;

	private final RetrySettings settings;

	private final RetryListener listener;

	private final boolean safeToRerun;

	/**
	 * Creates a retry that does not run an attempt again once independent work committed inside it.
	 * @param router the router whose entry of a rejected tenant is invalidated before a retry; never {@code null}
	 * @param observer told about every fence rejection, retry and exhaustion (the tenancy's
	 * {@code ShardTenancy.observer()}); never {@code null}
	 * @param settings the retry budget and backoff; never {@code null}
	 * @param listeners listeners told about every retry, in order; never {@code null}, may be empty
	 * @throws NullPointerException if an argument is {@code null}
	 */
	public ShardTenancyRetry(TenantRouter router, ShardTenancyObserver observer, RetrySettings settings,
			List<? extends RetryListener> listeners) {
		this(router, observer, settings, listeners, false);
	}

	/**
	 * @param router the router whose entry of a rejected tenant is invalidated before a retry; never {@code null}
	 * @param observer told about every fence rejection, retry and exhaustion (the tenancy's
	 * {@code ShardTenancy.observer()}); never {@code null}
	 * @param settings the retry budget and backoff; never {@code null}
	 * @param listeners listeners told about every retry, in order; never {@code null}, may be empty
	 * @param safeToRerun whether every unit of work is taken to be safe to run again after independent work
	 * committed inside a rejected attempt (the application-wide default; normally {@code false})
	 * @throws NullPointerException if an argument is {@code null}
	 */
	public ShardTenancyRetry(TenantRouter router, ShardTenancyObserver observer, RetrySettings settings,
			List<? extends RetryListener> listeners, boolean safeToRerun) {
		this.routes = routes(Objects.requireNonNull(router, "router"));
		this.observer = Objects.requireNonNull(observer, "observer");
		this.settings = Objects.requireNonNull(settings, "settings");
		CompositeRetryListener composite = new CompositeRetryListener();
		listeners.forEach(composite::addListener);
		this.listener = composite;
		this.safeToRerun = safeToRerun;
	}

	private ShardTenancyRetry(ShardTenancyRetry retry, boolean safeToRerun) {
		this.observer = retry.observer;
		this.routes = retry.routes;
		this.settings = retry.settings;
		this.listener = retry.listener;
		this.safeToRerun = safeToRerun;
	}

	/**
	 * The same retry, for work that is safe to run again even when work independent of its own transaction committed
	 * inside a rejected attempt (the committed work is then repeated once per attempt):
	 * <pre>{@code
	 * retry.safeToRerun().run(() -> {
	 *     transactionTemplate.executeWithoutResult(status -> counters.touch(key)); // idempotent
	 *     transactionTemplate.executeWithoutResult(status -> orders.save(order));
	 * });
	 * }</pre>
	 * @return a retry with the same router, settings and listeners that re-runs such work; never {@code null}
	 */
	public ShardTenancyRetry safeToRerun() {
		return this.safeToRerun ? this : new ShardTenancyRetry(this, true);
	}

	/** @return whether this retry runs work again after independent work committed inside a rejected attempt */
	public boolean isSafeToRerun() {
		return this.safeToRerun;
	}

	/**
	 * Runs work, retrying it after a fence rejection as described in the class documentation.
	 * @param work the work; each call of it should be one complete transaction; never {@code null}
	 * @param <T> the result type
	 * @return what the successful attempt returned, possibly {@code null}
	 * @throws RetriesExhaustedException if every attempt the budget allowed was rejected
	 * @throws UnsafeToRerunException if an attempt failed with a retryable failure after work independent of its own
	 * transaction had committed inside it, and this retry is not {@linkplain #safeToRerun() safe to re-run}
	 * @throws ShardTenancyException the library's typed error found in the failure's cause chain, if the failure was
	 * not retryable
	 * @throws RuntimeException the failure itself if it was not retryable and holds no library error
	 * @throws UndeclaredThrowableException wrapping a checked exception the work threw (sneakily)
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
	 * Runs work, retrying it after a fence rejection; see {@link #execute(Supplier)}.
	 * @param work the work; never {@code null}
	 * @throws RetriesExhaustedException if every attempt the budget allowed was rejected
	 * @throws UnsafeToRerunException if an attempt failed with a retryable failure after work independent of its own
	 * transaction had committed inside it, and this retry is not {@linkplain #safeToRerun() safe to re-run}
	 * @throws ShardTenancyException the library's typed error found in a non-retryable failure's cause chain
	 * @throws RuntimeException the failure itself if it was not retryable and holds no library error
	 */
	public void run(Runnable work) {
		Objects.requireNonNull(work, "work");
		execute(() -> {
			work.run();
			return null;
		});
	}

	/**
	 * Runs work, retrying it after a fence rejection; see {@link #execute(Supplier)}. Checked exceptions of the work
	 * reach the caller unchanged, so that {@code retry::call} is an {@link io.github.shardtenancy.TenantTaskRetry}.
	 * @param work the work; each call of it should be one complete transaction; never {@code null}
	 * @param <T> the result type
	 * @return what the successful attempt returned, possibly {@code null}
	 * @throws RetriesExhaustedException if every attempt the budget allowed was rejected
	 * @throws UnsafeToRerunException if an attempt failed with a retryable failure after work independent of its own
	 * transaction had committed inside it, and this retry is not {@linkplain #safeToRerun() safe to re-run}
	 * @throws Exception the failure that was not retried (the library's typed error found in its cause chain, if any)
	 */
	public <T> T call(Callable<T> work) throws Exception {
		Objects.requireNonNull(work, "work");
		try {
			return proceed("shard-tenancy work", work::call);
		}
		catch (Exception | Error ex) {
			throw ex;
		}
		catch (Throwable ex) {
			throw new UndeclaredThrowableException(ex);
		}
	}

	/** @return the settings this instance retries with */
	public RetrySettings settings() {
		return this.settings;
	}

	/**
	 * @return whether a call on this thread would only run its work once: a transaction is active, or an outer call
	 * is running
	 */
	public static boolean isNested() {
		return RetryAttempts.inProgress() || TransactionSynchronizationManager.isActualTransactionActive();
	}

	/**
	 * The core of every call: checked exceptions of the work pass through unchanged (the method interceptor relies on
	 * that).
	 */
	<T> T proceed(String name, Retryable<T> work) throws Throwable {
		return proceed(name, () -> false, work);
	}

	/**
	 * Like {@link #proceed(String, Retryable)}, for work that may declare itself safe to re-run.
	 * @param safeToRerun asked only when an attempt that committed independent work failed retryably: whether the
	 * work declared itself safe to run again (this retry's own setting applies as well)
	 */
	<T> T proceed(String name, BooleanSupplier safeToRerun, Retryable<T> work) throws Throwable {
		if (isNested()) {
			return work.execute();
		}
		BooleanSupplier mayRerun = () -> this.safeToRerun || safeToRerun.getAsBoolean();
		try (RetryAttempts attempts = RetryAttempts.begin(this.settings, this.routes, this.observer,
				mayRerun)) {
			RetryTemplate template = new RetryTemplate(new AttemptsPolicy(attempts));
			template.setRetryListener(this.listener);
			try {
				return template.execute(new Retryable<T>() {

					@Override
					public T execute() throws Throwable {
						return attempts.attempt(work::execute);
					}

					@Override
					public String getName() {
						return name;
					}

				});
			}
			catch (RetryException ex) {
				// The template stops once the attempts said no (or its back-off wait was interrupted).
				throw attempts.attempts() > 0 ? attempts.failure() : ex;
			}
		}
	}

	private static RouteInvalidation routes(TenantRouter router) {
		return new RouteInvalidation() {

			@Override
			public void invalidate(String tenantId) {
				router.invalidate(tenantId);
			}

			@Override
			public Optional<Route> cachedRoute(String tenantId) {
				return router.cached(tenantId).map((entry) -> new Route(entry.shardId(), entry.version()));
			}

		};
	}

	/**
	 * Spring's view of the core's decisions: {@link RetryAttempts#shouldRetry(Throwable)} decides, and the backoff
	 * asks {@link RetryAttempts#nextDelay()} before each retry.
	 */
	private record AttemptsPolicy(RetryAttempts attempts) implements RetryPolicy {

		@Override
		public boolean shouldRetry(Throwable failure) {
			return this.attempts.shouldRetry(failure);
		}

		@Override
		public BackOff getBackOff() {
			BackOffExecution execution = () -> this.attempts.nextDelay().toMillis();
			return () -> execution;
		}

	}

}
