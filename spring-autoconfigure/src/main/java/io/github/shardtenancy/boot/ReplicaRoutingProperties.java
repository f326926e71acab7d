package io.github.shardtenancy.boot;

import java.time.Duration;

/**
 * Routing of read-only transactions to the shards' read replicas. Bound from {@code shard-tenancy.replicas.*}, see
 * {@link ShardTenancyProperties}; the replicas themselves are {@code shard-tenancy.shards.<id>.replicas[n].*}.
 */
public class ReplicaRoutingProperties {

	/**
	 * Whether read-only transactions ({@code @Transactional(readOnly = true)}) of ACTIVE tenants may be served by a
	 * replica of their shard that is within {@code max-lag}. Default false.
	 */
	private boolean enabled;

	/**
	 * Maximum lag of a replica behind its primary for it to serve reads, measured by comparing WAL positions in the
	 * background. Default 5 seconds.
	 */
	private Duration maxLag = Duration.ofSeconds(5);

	/** Interval between two measurements of every replica's lag; keep it well below {@code max-lag}. Default 500 ms. */
	private Duration sampleInterval = Duration.ofMillis(500);

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public Duration getMaxLag() {
		return this.maxLag;
	}

	public void setMaxLag(Duration maxLag) {
		this.maxLag = maxLag;
	}

	public Duration getSampleInterval() {
		return this.sampleInterval;
	}

	public void setSampleInterval(Duration sampleInterval) {
		this.sampleInterval = sampleInterval;
	}

}
