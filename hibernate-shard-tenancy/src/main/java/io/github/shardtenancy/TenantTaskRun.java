package io.github.shardtenancy;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * A run of {@link TenantTasks#start}: one transaction per tenant, running in the background. Thread-safe: progress
 * and results can be read from any thread while it runs.
 *
 * @param <T> the result type of the work
 */
public interface TenantTaskRun<T> {

	/** @return the run's name, or {@code null} for an unnamed (not resumable) run */
	String name();

	/** @return the progress now; never {@code null} */
	TenantTaskProgress progress();

	/**
	 * @return the outcome of every tenant that finished so far, by tenant id; a new unmodifiable map, never
	 * {@code null}
	 */
	Map<String, TenantTaskResult<T>> results();

	/**
	 * @return completes with {@link #results()} when every tenant finished (or was left out by {@link #stop()});
	 * never completes exceptionally; never {@code null}
	 */
	CompletableFuture<Map<String, TenantTaskResult<T>>> completion();

	/**
	 * Waits until the run finishes.
	 * @return the outcome of every tenant; never {@code null}
	 * @throws IllegalStateException if the calling thread is interrupted (its interrupt flag is set again)
	 */
	Map<String, TenantTaskResult<T>> await();

	/**
	 * Waits until the run finishes, at most a given time.
	 * @param timeout the longest wait; never {@code null}
	 * @return whether the run finished
	 * @throws IllegalStateException if the calling thread is interrupted (its interrupt flag is set again)
	 */
	boolean await(Duration timeout);

	/**
	 * Starts no further tenant; those running finish their transaction. The tenants left out are reported
	 * {@link TenantTaskResult.Status#NOT_RUN}; a named run resumed later runs them. Idempotent.
	 */
	void stop();

}
