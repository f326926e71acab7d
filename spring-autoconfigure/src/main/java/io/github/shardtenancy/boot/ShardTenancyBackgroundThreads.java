package io.github.shardtenancy.boot;

import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.concurrent.Executor;

import io.github.shardtenancy.spi.BackgroundScheduler;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.task.ThreadPoolTaskExecutorBuilder;
import org.springframework.boot.task.ThreadPoolTaskSchedulerBuilder;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * The threads the tenancy's background work runs on, from Spring Boot's task support rather than threads of the
 * library's own:
 * <ul>
 * <li>periodic work (the router's directory sync, the registry sync, scheduled reconciliation) on the application's
 * {@link TaskScheduler} when there is exactly one (Boot's {@code taskScheduler} with {@code @EnableScheduling}, on
 * virtual threads under {@code spring.threads.virtual.enabled=true}), else on a one-thread
 * {@link ThreadPoolTaskScheduler} named {@code shard-tenancy-scheduler-} built with Boot's
 * {@link ThreadPoolTaskSchedulerBuilder} (virtual threads under {@code spring.threads.virtual.enabled=true});</li>
 * <li>moves on a {@link ThreadPoolTaskExecutor} named {@code shard-tenancy-move-} built with Boot's
 * {@link ThreadPoolTaskExecutorBuilder} (when Boot's task execution auto-configuration is active), with the library's
 * bounds (4 threads, 64 queued moves, a move beyond refused) and no task decorator (a move does not run as the tenant
 * of the thread that started it); else the library's own move executor.</li>
 * </ul>
 * The tenancy depends on this bean, so it is closed first; {@link #destroy()} then shuts down the scheduler and
 * executor created here (never the application's scheduler).
 */
final class ShardTenancyBackgroundThreads implements DisposableBean {

	/** Threads of the move executor at most (the library's default). */
	static final int MOVE_THREADS = 4;

	/** Queued moves at most (the library's default). */
	static final int MOVE_QUEUE = 64;

	private final BackgroundScheduler scheduler;

	private final @Nullable ThreadPoolTaskScheduler ownScheduler;

	private final @Nullable ThreadPoolTaskExecutor moveExecutor;

	/**
	 * @param applicationScheduler the application's task scheduler, or {@code null}
	 * @param schedulerBuilder Boot's builder of scheduler pools, or {@code null}
	 * @param executorBuilder Boot's builder of executor pools, or {@code null} (then the library's move executor)
	 * @param virtualThreads whether {@code spring.threads.virtual.enabled} is on and the JVM has virtual threads
	 */
	ShardTenancyBackgroundThreads(@Nullable TaskScheduler applicationScheduler,
			@Nullable ThreadPoolTaskSchedulerBuilder schedulerBuilder, @Nullable ThreadPoolTaskExecutorBuilder executorBuilder,
			boolean virtualThreads) {
		if (applicationScheduler != null) {
			this.ownScheduler = null;
			this.scheduler = adapt(applicationScheduler);
		}
		else {
			ThreadPoolTaskScheduler own = (schedulerBuilder != null)
					? schedulerBuilder.customizers(Collections.emptyList()).taskDecorator(null).build()
					: new ThreadPoolTaskScheduler();
			own.setPoolSize(1);
			own.setThreadNamePrefix("shard-tenancy-scheduler-");
			own.setDaemon(true);
			own.setVirtualThreads(virtualThreads);
			own.initialize();
			this.ownScheduler = own;
			this.scheduler = adapt(own);
		}
		if (executorBuilder != null) {
			ThreadPoolTaskExecutor executor = executorBuilder.customizers(Collections.emptyList())
				.taskDecorator(null)
				.corePoolSize(MOVE_THREADS)
				.maxPoolSize(MOVE_THREADS)
				.queueCapacity(MOVE_QUEUE)
				.allowCoreThreadTimeOut(true)
				.keepAlive(Duration.ofSeconds(60))
				.threadNamePrefix("shard-tenancy-move-")
				.build();
			executor.setDaemon(true);
			executor.setVirtualThreads(virtualThreads);
			executor.initialize();
			this.moveExecutor = executor;
		}
		else {
			this.moveExecutor = null;
		}
	}

	private static BackgroundScheduler adapt(TaskScheduler scheduler) {
		return (task, initialDelay, delay) -> scheduler.scheduleWithFixedDelay(task,
				Instant.now(scheduler.getClock()).plus(initialDelay), delay);
	}

	/** @return the scheduler of the periodic background work; never {@code null} */
	BackgroundScheduler scheduler() {
		return this.scheduler;
	}

	/** @return the move executor, or {@code null} for the library's own */
	@Nullable Executor moveExecutor() {
		return this.moveExecutor;
	}

	/** Shuts down the scheduler and the executor created here: running tasks are interrupted, queued ones dropped. */
	@Override
	public void destroy() {
		if (this.moveExecutor != null) {
			this.moveExecutor.shutdown();
		}
		if (this.ownScheduler != null) {
			this.ownScheduler.shutdown();
		}
	}

}
