package io.github.shardtenancy.boot;

/**
 * Micrometer Observation settings. Bound from {@code shard-tenancy.observations.*}, see
 * {@link ShardTenancyProperties}.
 */
public class ObservationProperties {

	/**
	 * Whether the tenant is a low-cardinality key value of the library's observations, and so a tag of the timers
	 * they become. Only for applications with few tenants: each tenant adds a time series per timer. Default
	 * {@code false}: the tenant is a high-cardinality key value, on spans only.
	 */
	private boolean tenantLowCardinality = false;

	public boolean isTenantLowCardinality() {
		return this.tenantLowCardinality;
	}

	public void setTenantLowCardinality(boolean tenantLowCardinality) {
		this.tenantLowCardinality = tenantLowCardinality;
	}

}
