package io.github.shardtenancy.boot;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Future;

import io.github.shardtenancy.MoveInProgressException;
import io.github.shardtenancy.MoveStatus;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.TenantMover;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.spi.BackgroundScheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lifecycle's background work, on the tenancy's background scheduler ({@link ShardTenancyBackgroundThreads}: the
 * application's {@code TaskScheduler}, or one built with Boot's builder; it needs no {@code @EnableScheduling}):
 * <ul>
 * <li>every {@code shard-tenancy.lifecycle.registry-sync-interval}, {@link TenantAdmin#syncShards()} (changes made
 * by other instances);</li>
 * <li>when {@code shard-tenancy.reconciliation.enabled=true}, {@link ShardTenancy#reconcile()} every
 * {@code shard-tenancy.reconciliation.interval} (first run one interval after start); the findings are
 * {@link ShardTenancy#lastReconciliation()};</li>
 * <li>when {@code shard-tenancy.move.soak} is positive, every {@code shard-tenancy.lifecycle.registry-sync-interval},
 * {@link io.github.shardtenancy.TenantMover#resume} of each move in its soak
 * ({@link io.github.shardtenancy.TenantMover#findSoaking()}): so its reverse catch-up runs on this instance, and the
 * move is finalised once its soak has passed, also after the instance that flipped it stopped.</li>
 * </ul>
 * The configured shards are recorded in the registry when the tenancy starts
 * ({@code shard-tenancy.lifecycle.register-shards}).
 * Failures of a background run are logged and retried at the next run.
 */
class ShardTenancyLifecycleScheduler extends ScheduledBackgroundWork {

	private static final Logger log = LoggerFactory.getLogger(ShardTenancyLifecycleScheduler.class);

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
		if (!this.properties.getMove().getSoak().isZero()) {
			started.add(this.scheduler.scheduleWithFixedDelay(
					quietly("resumption of moves in their soak", this::resumeSoakingMoves), sync, sync));
		}
	}

	private void resumeSoakingMoves() {
		TenantMover mover = this.tenancy.mover();
		for (MoveStatus move : mover.findSoaking()) {
			try {
				mover.resume(move.moveId());
			}
			catch (MoveInProgressException ex) {
				log.debug("Move {} in its soak is run by another instance now", move.moveId());
			}
			catch (RuntimeException ex) {
				log.warn("Background resumption of move {} in its soak failed: {}", move.moveId(), ex.getMessage());
			}
		}
	}

}
