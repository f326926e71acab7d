package io.github.shardtenancy.internal.routing;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The tenants invalidated while one sync or snapshot load of a {@link Router} runs: at most
 * {@link Router#MAX_TRACKED_INVALIDATIONS} (a few more under concurrent invalidations), after which every tenant counts
 * as invalidated. Thread-safe.
 */
final class SyncPass {

	private final Set<String> invalidated = ConcurrentHashMap.newKeySet();

	private volatile boolean overflowed;

	void invalidated(String tenantId) {
		if (this.overflowed) {
			return;
		}
		if (this.invalidated.size() < Router.MAX_TRACKED_INVALIDATIONS) {
			this.invalidated.add(tenantId);
		}
		else {
			this.overflowed = true; // never cleared, and the set never shrinks: a tenant once seen stays seen
		}
	}

	boolean mayHaveInvalidated(String tenantId) {
		return this.overflowed || this.invalidated.contains(tenantId);
	}

}
