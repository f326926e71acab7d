package io.github.shardtenancy.retry;

import java.util.Optional;

/**
 * Drops the cached route of one tenant, so that the next attempt of its work reads the directory again and goes to
 * the shard that owns the tenant now. {@link ShardTenancyRetry} calls it after every shard fence rejection, for
 * exactly the rejected tenant, before the work runs again. The library's router is one (for example
 * {@code routes = router::invalidate}).
 *
 * <p>Implementations are called from any thread, possibly from many at once: they must be thread-safe, and should be
 * fast (a cache removal).
 */
@FunctionalInterface
public interface RouteInvalidation {

	/**
	 * Drops the cached route of a tenant; does nothing if none is cached.
	 * @param tenantId the rejected tenant; never {@code null}
	 */
	void invalidate(String tenantId);

	/**
	 * The route a tenant's work takes now, if cached: named in the exceptions the retry raises when the failure
	 * itself does not say (a lost connection, a serialization failure). Must not read the directory.
	 * @param tenantId the tenant; never {@code null}
	 * @return the cached route, or empty if none is cached or this implementation does not know (the default);
	 * never {@code null}
	 */
	default Optional<Route> cachedRoute(String tenantId) {
		return Optional.empty();
	}

	/**
	 * Where a tenant's work is routed.
	 * @param shardId the shard; never {@code null}
	 * @param directoryVersion the directory version of the entry the route comes from
	 */
	record Route(String shardId, long directoryVersion) {

	}

}
