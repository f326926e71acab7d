package io.github.shardtenancy.internal.routing;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.CopyOnWriteArrayList;

import com.github.benmanes.caffeine.cache.RemovalCause;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.RouteChangeListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link RouteChangeListener}s of a {@link Router}, and what telling them needs: the lock every told change runs
 * under (so each is told against the entry it replaces), and the last entry of each tenant evicted for size while
 * listeners are registered (so a listener is told what the tenant was routed by when it is read again). Thread-safe.
 */
final class ChangeListeners {

	private static final Logger log = LoggerFactory.getLogger(ChangeListeners.class);

	private final List<RouteChangeListener> listeners = new CopyOnWriteArrayList<>();

	/** Serialises the changes listeners are told of. */
	final Object lock = new Object();

	private final ConcurrentMap<String, DirectoryEntry> evictedForSize = new ConcurrentHashMap<>();

	boolean isEmpty() {
		return this.listeners.isEmpty();
	}

	void add(RouteChangeListener listener) {
		this.listeners.add(Objects.requireNonNull(listener, "listener"));
	}

	void remove(RouteChangeListener listener) {
		this.listeners.remove(listener);
		if (this.listeners.isEmpty()) {
			this.evictedForSize.clear();
		}
	}

	/** @return the entry a tenant is routed by: the cached one, else the last one evicted for size, else null */
	DirectoryEntry previous(String tenantId, DirectoryEntry cached) {
		return (cached != null) ? cached : this.evictedForSize.get(tenantId);
	}

	/** Forgets the entry evicted for size of a tenant cached again (or dropped). */
	DirectoryEntry forgetEvicted(String tenantId) {
		return this.evictedForSize.isEmpty() ? null : this.evictedForSize.remove(tenantId);
	}

	void tell(String tenantId, DirectoryEntry previous, DirectoryEntry current) {
		for (RouteChangeListener listener : this.listeners) {
			try {
				listener.routeChanged(tenantId, previous, current);
			}
			catch (RuntimeException ex) {
				log.warn("Route change listener {} failed for tenant '{}' ({} -> {})", listener, tenantId, previous,
						current, ex);
			}
		}
	}

	/** Caffeine's eviction listener: keeps an entry evicted for size while listeners are registered. */
	void evicted(String tenantId, DirectoryEntry entry, RemovalCause cause) {
		if (cause == RemovalCause.SIZE && tenantId != null && entry != null && !this.listeners.isEmpty()) {
			this.evictedForSize.put(tenantId, entry);
		}
	}

}
