package io.github.shardtenancy.micrometer;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

import io.github.shardtenancy.ReplicaStatus;
import io.github.shardtenancy.ShardTopology;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * The lag of every read replica, as the tenancy's background sampler last measured it: the gauge
 * {@code shardtenancy.replica.lag} (seconds; tags {@code shard} and {@code replica}), {@code NaN} while the lag is
 * unknown (not sampled yet, replica down or promoted, or replica routing off). A replica serves reads only while its lag
 * is within {@code max-lag}.
 *
 * <p>Gauges are registered for the replicas the topology has when {@link #bindTo(MeterRegistry)} runs (the configured
 * ones, once the tenancy has started); a replica added later, by {@code syncShards()}, gets its gauge at the next bind.
 * Thread-safe.
 */
public final class ReplicaLagMetrics implements MeterBinder {

	private final ShardTopology topology;

	/** @param topology the tenancy's topology ({@code ShardTenancy.topology()}) */
	public ReplicaLagMetrics(ShardTopology topology) {
		this.topology = Objects.requireNonNull(topology, "topology");
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		for (ReplicaStatus replica : this.topology.replicas()) {
			String shardId = replica.shardId();
			String name = replica.name();
			Gauge.builder("shardtenancy.replica.lag", this.topology, (topology) -> lagSeconds(topology, shardId, name))
				.description("How far the read replica is behind its primary at most, as last measured; NaN if unknown")
				.baseUnit("seconds")
				.tag(ShardPoolMetrics.SHARD_TAG, shardId)
				.tag("replica", name)
				.register(registry);
		}
	}

	private static double lagSeconds(ShardTopology topology, String shardId, String name) {
		for (ReplicaStatus replica : topology.replicas()) {
			if (replica.shardId().equals(shardId) && replica.name().equals(name)) {
				Duration lag = replica.lag();
				return lag != null ? lag.toNanos() / (double) TimeUnit.SECONDS.toNanos(1) : Double.NaN;
			}
		}
		return Double.NaN;
	}

}
