package io.github.shardtenancy.boot;

import java.time.Duration;

import io.github.shardtenancy.LoadMeasure;

/**
 * The load figures: this instance's traffic per tenant, their metrics and the hot-tenant report. Bound from
 * {@code shard-tenancy.load.*}, see {@link ShardTenancyProperties}.
 */
public class LoadProperties {

	/**
	 * Whether each tenant connection's traffic (transactions, rows written, time held) is counted when it is
	 * released, kept in memory per tenant and exposed as metrics and on the {@code shardtenancyload} endpoint. Default
	 * false.
	 */
	private boolean enabled = false;

	/** Length of one window of the traffic figures; they cover the current window and the one before. Default 5 min. */
	private Duration window = Duration.ofMinutes(5);

	/** Maximum number of tenants whose traffic is kept; the least recently seen are dropped first. Default 100000. */
	private long maxTenants = 100_000;

	/**
	 * Whether the traffic gauges carry a {@code tenant} tag, one series per tenant seen in the window (high
	 * cardinality). Default false: one series per shard.
	 */
	private boolean tenantMetrics = false;

	/** Time between two refreshes of the traffic gauges' series. Default 15 s. */
	private Duration metricsRefresh = Duration.ofSeconds(15);

	/** Measure the hot-tenant report compares. Default rows. */
	private LoadMeasure hotMeasure = LoadMeasure.ROWS;

	/** Share of its shard's load above which the hot-tenant report names a tenant, greater than 0 and at most 1. Default 0.5. */
	private double hotThreshold = 0.5;

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public Duration getWindow() {
		return this.window;
	}

	public void setWindow(Duration window) {
		this.window = window;
	}

	public long getMaxTenants() {
		return this.maxTenants;
	}

	public void setMaxTenants(long maxTenants) {
		this.maxTenants = maxTenants;
	}

	public boolean isTenantMetrics() {
		return this.tenantMetrics;
	}

	public void setTenantMetrics(boolean tenantMetrics) {
		this.tenantMetrics = tenantMetrics;
	}

	public Duration getMetricsRefresh() {
		return this.metricsRefresh;
	}

	public void setMetricsRefresh(Duration metricsRefresh) {
		this.metricsRefresh = metricsRefresh;
	}

	public LoadMeasure getHotMeasure() {
		return this.hotMeasure;
	}

	public void setHotMeasure(LoadMeasure hotMeasure) {
		this.hotMeasure = hotMeasure;
	}

	public double getHotThreshold() {
		return this.hotThreshold;
	}

	public void setHotThreshold(double hotThreshold) {
		this.hotThreshold = hotThreshold;
	}

}
