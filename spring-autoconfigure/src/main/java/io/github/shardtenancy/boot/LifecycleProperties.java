package io.github.shardtenancy.boot;

import java.time.Duration;

/** Tenant lifecycle settings. Bound from {@code shard-tenancy.lifecycle.*}, see {@link ShardTenancyProperties}. */
public class LifecycleProperties {

	/**
	 * How {@code TenantAdmin.create} places a tenant when neither an override nor the request names a shard:
	 * {@code least-loaded}, {@code region} or {@code slots}. Default {@code least-loaded}.
	 */
	private Placement placement = Placement.LEAST_LOADED;

	/** The region the {@code region} policy uses for requests that name none. Default: none (a region is required). */
	private String defaultRegion;

	/**
	 * Whether the configured shards ({@code shard-tenancy.shards}) are recorded ACTIVE in the shard registry at
	 * start-up, after their migration, so that placement can use them. Default {@code true}.
	 */
	private boolean registerShards = true;

	/**
	 * How often the shard registry is read to drop the pools of shards retired by other instances and to connect
	 * to shards they registered. Default 30 s.
	 */
	private Duration registrySyncInterval = Duration.ofSeconds(30);

	public Placement getPlacement() {
		return this.placement;
	}

	public void setPlacement(Placement placement) {
		this.placement = placement;
	}

	public String getDefaultRegion() {
		return this.defaultRegion;
	}

	public void setDefaultRegion(String defaultRegion) {
		this.defaultRegion = defaultRegion;
	}

	public boolean isRegisterShards() {
		return this.registerShards;
	}

	public void setRegisterShards(boolean registerShards) {
		this.registerShards = registerShards;
	}

	public Duration getRegistrySyncInterval() {
		return this.registrySyncInterval;
	}

	public void setRegistrySyncInterval(Duration registrySyncInterval) {
		this.registrySyncInterval = registrySyncInterval;
	}

	/** Placement policies for new tenants. */
	public enum Placement {

		/** The ACTIVE shard owning fewest tenants (a requested region restricts the candidates). */
		LEAST_LOADED,

		/** The least-loaded ACTIVE shard of the requested region, or of {@code lifecycle.default-region}. */
		REGION,

		/** The shard of the tenant's fixed slot (fixed-slot mode must be initialised). */
		SLOTS

	}

}
