package io.github.shardtenancy.internal;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import io.github.shardtenancy.internal.topology.Topology;
import io.github.shardtenancy.spi.FenceDialect;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tries the configured shards that could not be reached at start-up ({@link Topology#pending()}) again, at a fixed
 * interval, in the background: once one answers it is migrated and prepared, then added to the topology, from when
 * its tenants are served ({@link io.github.shardtenancy.UnreachableShardPolicy#START_WITHOUT}). Thread-safe; one try
 * at a time, on a thread of its own.
 */
final class PendingShards implements Runnable, AutoCloseable {

	private static final Logger log = LoggerFactory.getLogger(PendingShards.class);

	private final Topology topology;

	private final Preparation preparation;

	private final Consumer<String> arrived;

	private volatile @Nullable ScheduledExecutorService executor;

	private volatile boolean closed;

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
	 * Tries the pending shards every {@code interval}, if there are any, on a daemon thread of its own: a try waits up
	 * to the pool's connection timeout per shard, and a shard that answers is migrated on it, which must not hold up
	 * the tenancy's other background work.
	 * @param interval the time between tries
	 */
	synchronized void start(Duration interval) {
		if (this.topology.pending().isEmpty() || this.executor != null || this.closed) {
			return;
		}
		ScheduledExecutorService own = Executors.newSingleThreadScheduledExecutor((task) -> {
			Thread thread = new Thread(task, "shard-tenancy-pending-shards");
			thread.setDaemon(true);
			return thread;
		});
		this.executor = own;
		own.scheduleWithFixedDelay(this, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
	}

	/** Tries each pending shard once; logs what happened, never throws. */
	@Override
	public void run() {
		for (Map.Entry<String, Topology.Pending> pending : this.topology.pending().entrySet()) {
			if (this.closed) {
				return;
			}
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
		ScheduledExecutorService own = this.executor;
		if (this.topology.pending().isEmpty() && own != null) {
			own.shutdown();
		}
	}

	/** Stops the tries; a try under way is interrupted (its shard stays pending). Does not wait for it. */
	@Override
	public void close() {
		this.closed = true;
		ScheduledExecutorService own = this.executor;
		if (own != null) {
			own.shutdownNow();
		}
	}

}
