package io.github.shardtenancy.boot;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.TenantAdmin;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * The lifecycle's background work, on one daemon thread of its own (it needs no {@code @EnableScheduling}):
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
class ShardTenancyLifecycleScheduler implements SmartLifecycle {

	private static final Logger log = LoggerFactory.getLogger(ShardTenancyLifecycleScheduler.class);

	private final ShardTenancy tenancy;

	private final ShardTenancyProperties properties;

	private ScheduledExecutorService executor;

	/**
	 * @param tenancy the tenancy
	 * @param properties the settings
	 */
	ShardTenancyLifecycleScheduler(ShardTenancy tenancy, ShardTenancyProperties properties) {
		this.tenancy = tenancy;
		this.properties = properties;
	}

	/** @return whether scheduled reconciliation is on */
	public boolean isReconciliationScheduled() {
		return this.properties.getReconciliation().isEnabled();
	}

	@Override
	public synchronized void start() {
		if (this.executor != null) {
			return;
		}
		this.executor = Executors.newSingleThreadScheduledExecutor(r -> {
			Thread t = new Thread(r, "shard-tenancy-lifecycle");
			t.setDaemon(true);
			return t;
		});
		long sync = this.properties.getLifecycle().getRegistrySyncInterval().toMillis();
		this.executor.scheduleWithFixedDelay(() -> quietly("shard registry sync", this.tenancy.admin()::syncShards),
				sync, sync, TimeUnit.MILLISECONDS);
		if (isReconciliationScheduled()) {
			long interval = this.properties.getReconciliation().getInterval().toMillis();
			this.executor.scheduleWithFixedDelay(() -> quietly("reconciliation", this.tenancy::reconcile), interval,
					interval, TimeUnit.MILLISECONDS);
		}
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
		if (this.executor != null) {
			this.executor.shutdownNow();
			this.executor = null;
		}
	}

	@Override
	public synchronized boolean isRunning() {
		return this.executor != null;
	}

}
