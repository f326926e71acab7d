package io.github.shardtenancy.boot;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Future;

import io.github.shardtenancy.spi.BackgroundScheduler;
import org.jspecify.annotations.Nullable;

/**
 * The load figures' background work, on the tenancy's background scheduler ({@link ShardTenancyBackgroundThreads}):
 * the rebalancer's scheduled run every {@code shard-tenancy.rebalancer.interval} (first run one interval after start)
 * when {@code shard-tenancy.rebalancer.enabled=true}, and the refresh of the traffic gauges' series every
 * {@code shard-tenancy.load.metrics-refresh}. Failures of a run are logged and retried at the next run.
 */
class ShardTenancyLoadScheduler extends ScheduledBackgroundWork {

	private final BackgroundScheduler scheduler;

	private final @Nullable RebalancerRuns rebalancer;

	private final Duration rebalancerInterval;

	private final @Nullable Runnable metricsRefresh;

	private final Duration metricsInterval;

	ShardTenancyLoadScheduler(BackgroundScheduler scheduler, @Nullable RebalancerRuns rebalancer,
			Duration rebalancerInterval, @Nullable Runnable metricsRefresh, Duration metricsInterval) {
		this.scheduler = scheduler;
		this.rebalancer = rebalancer;
		this.rebalancerInterval = rebalancerInterval;
		this.metricsRefresh = metricsRefresh;
		this.metricsInterval = metricsInterval;
	}

	@Override
	void schedule(List<Future<?>> started) {
		RebalancerRuns runs = this.rebalancer;
		if (runs != null) {
			started.add(this.scheduler.scheduleWithFixedDelay(quietly("rebalancer run", runs::scheduledRun),
					this.rebalancerInterval, this.rebalancerInterval));
		}
		Runnable refresh = this.metricsRefresh;
		if (refresh != null) {
			started.add(this.scheduler.scheduleWithFixedDelay(quietly("load metrics refresh", refresh),
					this.metricsInterval, this.metricsInterval));
		}
	}

}
