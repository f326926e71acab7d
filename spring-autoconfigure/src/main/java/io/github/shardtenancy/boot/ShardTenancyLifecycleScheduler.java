package io.github.shardtenancy.boot;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Future;

import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.spi.BackgroundScheduler;

/**
 * The lifecycle's background work, on the tenancy's background scheduler ({@link ShardTenancyBackgroundThreads}: the
 * application's {@code TaskScheduler}, or one built with Boot's builder; it needs no {@code @EnableScheduling}):
 * <ul>
 * <li>every {@code shard-tenancy.lifecycle.registry-sync-interval}, {@link TenantAdmin#syncShards()} (changes made
 * by other instances);</li>
 * <li>when {@code shard-tenancy.reconciliation.enabled=true}, {@link ShardTenancy#reconcile()} every
 * {@code shard-tenancy.reconciliation.interval} (first run one interval after start); the findings are
 * {@link ShardTenancy#lastReconciliation()}.</li>
 * </ul>
 * The configured shards are recorded in the registry when the tenancy starts
 * ({@code shard-tenancy.lifecycle.register-shards}).
 * Failures of a background run are logged and retried at the next run.
 */
class ShardTenancyLifecycleScheduler extends ScheduledBackgroundWork {

	private final ShardTenancy tenancy;

	private final ShardTenancyProperties properties;

	private final BackgroundScheduler scheduler;

	/**
	 * @param tenancy the tenancy
	 * @param properties the settings
	 * @param scheduler runs the background work
	 */
	ShardTenancyLifecycleScheduler(ShardTenancy tenancy, ShardTenancyProperties properties,
			BackgroundScheduler scheduler) {
		this.tenancy = tenancy;
		this.properties = properties;
		this.scheduler = scheduler;
	}

	/** @return whether scheduled reconciliation is on */
	public boolean isReconciliationScheduled() {
		return this.properties.getReconciliation().isEnabled();
	}

	@Override
	void schedule(List<Future<?>> started) {
		Duration sync = this.properties.getLifecycle().getRegistrySyncInterval();
		started.add(this.scheduler.scheduleWithFixedDelay(
				quietly("shard registry sync", this.tenancy.admin()::syncShards), sync, sync));
		if (isReconciliationScheduled()) {
			Duration interval = this.properties.getReconciliation().getInterval();
			started.add(this.scheduler.scheduleWithFixedDelay(quietly("reconciliation", this.tenancy::reconcile),
					interval, interval));
		}
	}

}
