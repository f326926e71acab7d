package io.github.shardtenancy;

import java.time.Instant;
import java.util.Optional;

/**
 * The router: resolves a tenant to its {@link DirectoryEntry} from an in-process cache of the directory, kept fresh in
 * the background, and drops one entry when a shard fence rejects work routed with it.
 *
 * <ul>
 * <li>A cached lookup ({@link #route(String)}) is a hash-map lookup; it never reads the directory.</li>
 * <li>A miss reads the directory once (concurrent misses of one tenant share that read) and never caches a guess. An
 * unknown tenant is remembered for {@link RouterSettings#negativeTtl()} only.</li>
 * <li>A background sync polls the global directory version every {@link RouterSettings#syncInterval()}; a watcher
 * (for example PostgreSQL {@code LISTEN}) may push changes sooner.</li>
 * <li>The directory version held never goes backwards, and an entry is only replaced by one with an equal or higher
 * version.</li>
 * </ul>
 *
 * <p>Obtained from {@link ShardTenancy#router()}. Thread-safe.
 */
public interface TenantRouter {

	/**
	 * Resolves a tenant to its directory entry.
	 * @param tenantId the tenant; never {@code null}
	 * @return the cached (or freshly read) entry; never {@code null}
	 * @throws InvalidTenantIdException if the id breaks the tenant id rule (no lookup is made)
	 * @throws UnknownTenantException if the directory has no entry for the tenant
	 * @throws InvalidDirectoryEntryException on a miss, if the tenant's directory row breaks the schema's rules
	 * (unknown state, epoch below 1); other tenants are not affected
	 * @throws TenantDeletedException (a {@link TenantUnavailableException}) if the tenant is DELETED
	 * @throws TenantUnavailableException if the directory is unreachable and the entry is MIGRATING or FROZEN
	 * @throws DirectoryUnavailableException on a miss while the directory is unreachable, or on any lookup under the
	 * {@link DirectoryDownPolicy#FAIL_CLOSED} policy while it is unreachable
	 */
	DirectoryEntry route(String tenantId);

	/**
	 * @param tenantId the tenant; never {@code null}
	 * @return the cached entry, without reading the directory; empty if not cached
	 */
	Optional<DirectoryEntry> cached(String tenantId);

	/**
	 * Drops one tenant's entry, so that the next lookup reads the directory; other entries are untouched. A lookup,
	 * sync or snapshot load in flight does not cache what it read for this tenant. Change listeners are told (with a
	 * {@code null} new entry) before this method returns.
	 * @param tenantId the tenant; never {@code null}
	 */
	void invalidate(String tenantId);

	/**
	 * Reads the entries changed since the held directory version and applies them. Concurrent calls are serialised.
	 * @return the directory version now held
	 * @throws DirectoryUnavailableException if the directory cannot be read (the router then marks it unreachable)
	 */
	long refresh();

	/** @return the directory version this router holds; never decreases */
	long version();

	/**
	 * @return whether the router can serve: it has loaded the directory once, and the directory is reachable or the
	 * policy is to serve from the cache
	 */
	boolean isReady();

	/** @return when the directory became unreachable, or empty while it is reachable; never {@code null} */
	Optional<Instant> directoryDownSince();

	/** @return the settings this router runs with; never {@code null} */
	RouterSettings settings();

	/** @return a snapshot of the counters; never {@code null} */
	RouterStats stats();

	/**
	 * Registers a listener told of every entry this router caches, replaces or drops from now on, before the new
	 * entry is routed by. Register before the tenants' data is cached: changes applied while the listener is being
	 * registered may not be reported.
	 * @param listener the listener; never {@code null}
	 * @throws NullPointerException if {@code listener} is {@code null}
	 */
	void addChangeListener(RouteChangeListener listener);

	/**
	 * Unregisters a listener; nothing happens if it was not registered.
	 * @param listener the listener
	 */
	void removeChangeListener(RouteChangeListener listener);

}
