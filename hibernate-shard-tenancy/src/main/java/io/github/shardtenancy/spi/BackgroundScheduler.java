package io.github.shardtenancy.spi;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Runs the tenancy's periodic background work (the router's directory sync) on threads the integrator owns, for
 * example a framework's task scheduler, instead of a thread the tenancy creates. The integrator keeps the threads
 * running while the tenancy is open and shuts them down after {@code ShardTenancy.close()}; the tenancy cancels its
 * tasks on close and never shuts the scheduler down.
 *
 * <p>Implementations must be thread-safe.
 */
@FunctionalInterface
public interface BackgroundScheduler {

	/**
	 * Runs a task repeatedly: first after {@code initialDelay}, then {@code delay} after each run ends. The task
	 * catches its own failures.
	 * @param task the work; never {@code null}
	 * @param initialDelay the delay before the first run, not negative
	 * @param delay the delay between the end of a run and the start of the next, positive
	 * @return the handle the tenancy cancels ({@code cancel(false)}: a run in progress ends normally) on close; never
	 * {@code null}
	 * @throws java.util.concurrent.RejectedExecutionException if the scheduler does not accept the task (the tenancy's
	 * start then fails with it)
	 */
	Future<?> scheduleWithFixedDelay(Runnable task, Duration initialDelay, Duration delay);

	/**
	 * @param executor a JDK scheduled executor, owned by the caller; never {@code null}
	 * @return a scheduler running tasks with {@link ScheduledExecutorService#scheduleWithFixedDelay}, in milliseconds
	 * @throws NullPointerException if {@code executor} is {@code null}
	 */
	static BackgroundScheduler of(ScheduledExecutorService executor) {
		Objects.requireNonNull(executor, "executor");
		return (task, initialDelay, delay) -> executor.scheduleWithFixedDelay(task, initialDelay.toMillis(),
				delay.toMillis(), TimeUnit.MILLISECONDS);
	}

}
