package io.github.shardtenancy;

/**
 * Told by a {@link TenantRouter} when the entry it routes a tenant by is about to change, or has been dropped, so that
 * a per-instance cache of the tenant's data (Hibernate's second-level and query caches, for example) can drop what it
 * holds before the tenant is routed by the new entry. Registered with {@link TenantRouter#addChangeListener}.
 *
 * <p>The router calls a listener on the thread that changes the entry (a directory read after a miss, the background
 * sync, a push watcher, a local directory write, {@link TenantRouter#invalidate(String)}), one change at a time per
 * router, and never on a cached lookup. Implementations must be thread-safe, should return quickly, and must not call
 * back into the router's {@code apply}, {@code invalidate}, {@code refresh} or {@code loadSnapshot}. A runtime
 * exception thrown by a listener is logged by the router and does not stop the change or the other listeners.
 */
@FunctionalInterface
public interface RouteChangeListener {

	/**
	 * Called before the router routes {@code tenantId} by {@code current}: on an entry it caches or replaces (the
	 * previous one still being the one lookups see), and after an entry was dropped by
	 * {@link TenantRouter#invalidate(String)}.
	 * @param tenantId the tenant; never {@code null}
	 * @param previous the entry the router held before: the cached one, or the last one it evicted for size when it
	 * holds none; {@code null} if it knows of none
	 * @param current the entry it is about to cache; {@code null} when the entry was dropped by
	 * {@link TenantRouter#invalidate(String)} (after a shard fence rejection)
	 */
	void routeChanged(String tenantId, DirectoryEntry previous, DirectoryEntry current);

}
