package io.github.shardtenancy.boot;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;

import io.github.shardtenancy.spi.BackgroundScheduler;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * The load figures' background work, on the tenancy's background scheduler ({@link ShardTenancyBackgroundThreads}):
 * the rebalancer's scheduled run every {@code shard-tenancy.rebalancer.interval} (first run one interval after start)
 * when {@code shard-tenancy.rebalancer.enabled=true}, and the refresh of the traffic gauges' series every
 * {@code shard-tenancy.load.metrics-refresh}. Failures of a run are logged and retried at the next run.
 */
class ShardTenancyLoadScheduler implements SmartLifecycle {

	private static final Logger log = LoggerFactory.getLogger(ShardTenancyLoadScheduler.class);

	private final BackgroundScheduler scheduler;

	private final @Nullable RebalancerRuns rebalancer;

	private final Duration rebalancerInterval;

	private final @Nullable Runnable metricsRefresh;

	private final Duration metricsInterval;

	private @Nullable List<Future<?>> tasks;

	ShardTenancyLoadScheduler(BackgroundScheduler scheduler, @Nullable RebalancerRuns rebalancer,
			Duration rebalancerInterval, @Nullable Runnable metricsRefresh, Duration metricsInterval) {
		this.scheduler = scheduler;
		this.rebalancer = rebalancer;
		this.rebalancerInterval = rebalancerInterval;
		this.metricsRefresh = metricsRefresh;
		this.metricsInterval = metricsInterval;
	}

	@Override
	public synchronized void start() {
		if (this.tasks != null) {
			return;
		}
		List<Future<?>> started = new ArrayList<>();
		RebalancerRuns runs = this.rebalancer;
		if (runs != null) {
			started.add(this.scheduler.scheduleWithFixedDelay(() -> quietly("rebalancer run", runs::scheduledRun),
					this.rebalancerInterval, this.rebalancerInterval));
		}
		Runnable refresh = this.metricsRefresh;
		if (refresh != null) {
			started.add(this.scheduler.scheduleWithFixedDelay(() -> quietly("load metrics refresh", refresh),
					this.metricsInterval, this.metricsInterval));
		}
		this.tasks = started;
	}

	private static void quietly(String what, Runnable work) {
		try {
			work.run();
		}
		catch (RuntimeException ex) {
			log.warn("Background {} failed: {}", what, ex.getMessage());
		}
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
