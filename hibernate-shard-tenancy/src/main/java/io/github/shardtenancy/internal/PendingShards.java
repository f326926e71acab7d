package io.github.shardtenancy.internal;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Consumer;

import io.github.shardtenancy.internal.topology.Topology;
import io.github.shardtenancy.spi.BackgroundScheduler;
import io.github.shardtenancy.spi.FenceDialect;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tries the configured shards that could not be reached at start-up ({@link Topology#pending()}) again, at a fixed
 * interval, in the background: once one answers it is migrated and prepared, then added to the topology, from when
 * its tenants are served ({@link io.github.shardtenancy.UnreachableShardPolicy#START_WITHOUT}). Thread-safe; one try
 * at a time.
 */
final class PendingShards implements Runnable, AutoCloseable {

	private static final Logger log = LoggerFactory.getLogger(PendingShards.class);

	private final Topology topology;

	private final Preparation preparation;

	private final Consumer<String> arrived;

	private @Nullable Future<?> schedule;

	private @Nullable ScheduledExecutorService executor;

	/** Migrates and prepares a shard before it is routed to. */
	@FunctionalInterface
	interface Preparation {

		/**
		 * @param shard the shard, not in the topology yet
		 * @throws RuntimeException if it cannot be migrated or prepared (it stays pending)
		 */
		void prepare(Topology.Shard shard);

	}

	/**
	 * @param topology the topology whose pending shards to try
	 * @param preparation migrates and prepares an answering shard
	 * @param arrived told the id of each shard added to the topology
	 */
	PendingShards(Topology topology, Preparation preparation, Consumer<String> arrived) {
		this.topology = topology;
		this.preparation = preparation;
		this.arrived = arrived;
	}

	/**
	 * Tries the pending shards every {@code interval}, if there are any.
	 * @param interval the time between tries
	 * @param scheduler where to run them, or {@code null} for a daemon thread of its own
	 */
	synchronized void start(Duration interval, @Nullable BackgroundScheduler scheduler) {
		if (this.topology.pending().isEmpty() || this.schedule != null) {
			return;
		}
		BackgroundScheduler background = scheduler;
		if (background == null) {
			this.executor = Executors.newSingleThreadScheduledExecutor((task) -> {
				Thread thread = new Thread(task, "shard-tenancy-pending-shards");
				thread.setDaemon(true);
				return thread;
			});
			background = BackgroundScheduler.of(this.executor);
		}
		this.schedule = background.scheduleWithFixedDelay(this, interval, interval);
	}

	/** Tries each pending shard once; logs what happened, never throws. */
	@Override
	public synchronized void run() {
		for (Map.Entry<String, Topology.Pending> pending : this.topology.pending().entrySet()) {
			String shardId = pending.getKey();
			FenceDialect dialect;
			try {
				dialect = Topology.dialectOf(shardId, pending.getValue().dataSource());
			}
			catch (RuntimeException ex) {
				log.debug("Shard '{}' still cannot be reached: {}", shardId, ex.getMessage());
				continue;
			}
			try {
				this.preparation.prepare(new Topology.Shard(shardId, pending.getValue().dataSource(), dialect, false));
				this.topology.arrive(shardId);
			}
			catch (RuntimeException ex) {
				log.warn("Shard '{}' answers but could not be migrated and prepared; it stays out of the topology and "
						+ "is tried again: {}", shardId, ex.toString());
				continue;
			}
			log.info("Shard '{}', which could not be reached at start-up, answers: migrated and prepared, its tenants "
					+ "are served", shardId);
			this.arrived.accept(shardId);
		}
		if (this.topology.pending().isEmpty() && this.schedule != null) {
			this.schedule.cancel(false);
		}
	}

	@Override
	public synchronized void close() {
		if (this.schedule != null) {
			this.schedule.cancel(false);
		}
		if (this.executor != null) {
			this.executor.shutdownNow();
		}
	}

}
