package io.github.shardtenancy.boot;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The dual read of moving tenants ({@code io.github.shardtenancy.DualRead}). Bound from
 * {@code shard-tenancy.dual-read.*}, see {@link ShardTenancyProperties}.
 */
public class DualReadProperties {

	/**
	 * Whether the queries an application compares while a tenant moves run on its target shard too, and whether the
	 * move's verification runs the registered queries. Default false.
	 */
	private boolean enabled = false;

	/** Share of the comparisons of a moving tenant that are run, from 0.0 to 1.0. Default 1.0. */
	private double sampleRate = 1.0;

	/** Time limit of one comparison, its re-checks included. Default 5 s. */
	private Duration timeout = Duration.ofSeconds(5);

	/**
	 * Number of times a comparison that found a difference reads both shards again before it reports a mismatch (a
	 * difference that goes away was the target lagging). Default 3.
	 */
	private int rechecks = 3;

	/** Pause before each re-check, to let the move's catch-up go on. Default 500 ms. */
	private Duration recheckDelay = Duration.ofMillis(500);

	/**
	 * Registered queries by name: SQL whose only parameter is the tenant id, selecting that tenant's rows; compared
	 * by name and run by the move's verification inside the freeze.
	 */
	private final Map<String, String> queries = new LinkedHashMap<>();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public double getSampleRate() {
		return this.sampleRate;
	}

	public void setSampleRate(double sampleRate) {
		this.sampleRate = sampleRate;
	}

	public Duration getTimeout() {
		return this.timeout;
	}

	public void setTimeout(Duration timeout) {
		this.timeout = timeout;
	}

	public int getRechecks() {
		return this.rechecks;
	}

	public void setRechecks(int rechecks) {
		this.rechecks = rechecks;
	}

	public Duration getRecheckDelay() {
		return this.recheckDelay;
	}

	public void setRecheckDelay(Duration recheckDelay) {
		this.recheckDelay = recheckDelay;
	}

	public Map<String, String> getQueries() {
		return this.queries;
	}

}
