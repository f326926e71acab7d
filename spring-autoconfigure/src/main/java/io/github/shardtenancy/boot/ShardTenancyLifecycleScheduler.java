package io.github.shardtenancy.boot;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.github.shardtenancy.internal.placement.SlotMap;
import io.github.shardtenancy.internal.reconcile.Reconciler;
import io.github.shardtenancy.internal.topology.ShardRegistry;
import io.github.shardtenancy.internal.topology.Topology;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * The lifecycle's background work, on one daemon thread of its own (it needs no {@code @EnableScheduling}):
 * <ul>
 * <li>at start, records the configured shards ACTIVE in the shard registry (already migrated by then), unless
 * {@code shard-tenancy.lifecycle.register-shards=false};</li>
 * <li>every {@code shard-tenancy.lifecycle.registry-sync-interval}, {@link ShardRegistry#sync()} and
 * {@link SlotMap#refresh()} (changes made by other instances);</li>
 * <li>when {@code shard-tenancy.reconciliation.enabled=true}, {@link Reconciler#run()} every
 * {@code shard-tenancy.reconciliation.interval} (first run one interval after start); the findings are
 * {@link Reconciler#lastReport()}.</li>
 * </ul>
 * Failures of a background run are logged and retried at the next run.
 */
class ShardTenancyLifecycleScheduler implements SmartLifecycle {

	private static final Logger log = LoggerFactory.getLogger(ShardTenancyLifecycleScheduler.class);

	private final ShardRegistry registry;

	private final Reconciler reconciler;

	private final SlotMap slots;

	private final Topology topology;

	private final ShardTenancyProperties properties;

	private ScheduledExecutorService executor;

	/**
	 * @param registry the shard registry
	 * @param reconciler the reconciliation job
	 * @param slots the slot map
	 * @param topology the configured shards
	 * @param properties the settings
	 */
	ShardTenancyLifecycleScheduler(ShardRegistry registry, Reconciler reconciler, SlotMap slots,
			Topology topology, ShardTenancyProperties properties) {
		this.registry = registry;
		this.reconciler = reconciler;
		this.slots = slots;
		this.topology = topology;
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
		if (this.properties.getLifecycle().isRegisterShards()) {
			registerConfiguredShards();
		}
		this.executor = Executors.newSingleThreadScheduledExecutor(r -> {
			Thread t = new Thread(r, "shard-tenancy-lifecycle");
			t.setDaemon(true);
			return t;
		});
		long sync = this.properties.getLifecycle().getRegistrySyncInterval().toMillis();
		this.executor.scheduleWithFixedDelay(() -> quietly("shard registry sync", () -> {
			this.registry.sync();
			this.slots.refresh();
		}), sync, sync, TimeUnit.MILLISECONDS);
		if (isReconciliationScheduled()) {
			long interval = this.properties.getReconciliation().getInterval().toMillis();
			this.executor.scheduleWithFixedDelay(() -> quietly("reconciliation", this.reconciler::run), interval,
					interval, TimeUnit.MILLISECONDS);
		}
	}

	private void registerConfiguredShards() {
		this.properties.getShards().forEach((id, shard) -> {
			if (!this.topology.contains(id)) {
				return;
			}
			try {
				this.registry.adopt(id, shard.getRegion(), shard.getUrl(), shard.getUsername());
			}
			catch (RuntimeException ex) {
				log.warn("Configured shard '{}' is not eligible for placement: {}", id, ex.getMessage());
			}
		});
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
