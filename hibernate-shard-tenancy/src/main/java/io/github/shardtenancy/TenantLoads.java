package io.github.shardtenancy;

import java.util.List;

/**
 * Per-tenant and per-shard load figures: traffic seen by this instance (transactions, rows written, time spent,
 * counted where each tenant connection is released, kept in memory for a window) and storage read from the shards'
 * own statistics (rows and an estimate of bytes per tenant). Obtained from {@link ShardTenancy#load()}.
 *
 * <p>Traffic figures are this instance's only: with several instances, each sees its own share of the requests.
 * Storage figures are the same from every instance. Thread-safe.
 */
public interface TenantLoads {

	/**
	 * @return whether traffic is counted ({@link ShardTenancyBuilder#loadTracking}); when it is not, traffic figures
	 * are 0
	 */
	boolean tracking();

	/**
	 * @return the traffic of every tenant this instance served in the window, storage figures {@code -1}, most
	 * transactions first; never {@code null}
	 */
	List<TenantLoad> traffic();

	/**
	 * Reads the directory and counts every tenant table of every ACTIVE registered shard (one grouped query per table,
	 * a full scan: run it now and then, not per request), then adds this instance's traffic.
	 * @return every tenant that is not DELETED, with the shard that owns it, sorted by tenant id; a tenant whose shard
	 * could not be read has storage figures {@code -1}; never {@code null}
	 * @throws DirectoryUnavailableException if the directory cannot be read
	 */
	List<TenantLoad> measure();

	/**
	 * @param tenants figures from {@link #measure()} or {@link #traffic()}
	 * @return the totals per ACTIVE registered shard, a shard without tenants included with zeros, sorted by shard id;
	 * never {@code null}
	 * @throws DirectoryUnavailableException if the shard registry cannot be read
	 */
	List<ShardLoad> shards(List<TenantLoad> tenants);

	/**
	 * @param tenants figures from {@link #measure()} or {@link #traffic()}
	 * @param measure what to compare
	 * @param threshold the share of its shard's load above which a tenant is reported, greater than 0 and at most 1
	 * @return the tenants above the threshold, largest share first; never {@code null}
	 * @throws IllegalArgumentException if the threshold is not in (0, 1]
	 */
	List<HotTenant> hotTenants(List<TenantLoad> tenants, LoadMeasure measure, double threshold);

}
