package io.github.shardtenancy.boot;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Periodic work on the tenancy's background scheduler ({@link ShardTenancyBackgroundThreads}), started and stopped
 * with the application context: subclasses schedule their tasks in {@link #schedule(List)}; {@link #stop()} cancels
 * them (a run in progress ends normally). A failed run is logged and retried at the next run ({@link #quietly}).
 */
abstract class ScheduledBackgroundWork implements SmartLifecycle {

	private static final Logger log = LoggerFactory.getLogger(ScheduledBackgroundWork.class);

	private @Nullable List<Future<?>> tasks;

	/**
	 * Schedules the tasks.
	 * @param started the list to add each scheduled task's handle to
	 */
	abstract void schedule(List<Future<?>> started);

	@Override
	public synchronized void start() {
		if (this.tasks != null) {
			return;
		}
		List<Future<?>> started = new ArrayList<>();
		schedule(started);
		this.tasks = started;
	}

	/**
	 * @param what the work, named in the log line of a failure
	 * @param work the work
	 * @return a task that runs the work and logs its failure instead of throwing
	 */
	static Runnable quietly(String what, Runnable work) {
		return () -> {
			try {
				work.run();
			}
			catch (RuntimeException ex) {
				log.warn("Background {} failed: {}", what, ex.getMessage());
			}
		};
	}

	@Override
	public synchronized void stop() {
		if (this.tasks != null) {
			this.tasks.forEach((task) -> task.cancel(false));
			this.tasks = null;
		}
	}

	@Override
	public synchronized boolean isRunning() {
		return this.tasks != null;
	}

}
