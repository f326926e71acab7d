package io.github.shardtenancy;

/**
 * Counters of one router since it was created. A snapshot; counts are exact.
 *
 * @param hits lookups answered from the cache
 * @param misses lookups that had to read the directory (concurrent misses of one tenant count once each, but share
 * one read)
 * @param negativeHits lookups answered "unknown" from the negative cache
 * @param directoryReads single-entry reads of the directory (the cost of misses)
 * @param invalidations entries dropped by {@link TenantRouter#invalidate(String)}
 * @param syncs background syncs that found changes and applied them
 * @param servedStale lookups answered from the cache while the directory was unreachable
 * @param cachedEntries entries in the cache now (approximate, as Caffeine's estimated size)
 * @param version the directory version the router holds
 */
public record RouterStats(long hits, long misses, long negativeHits, long directoryReads, long invalidations,
		long syncs, long servedStale, long cachedEntries, long version) {
}
