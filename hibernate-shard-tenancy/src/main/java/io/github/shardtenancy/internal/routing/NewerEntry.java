package io.github.shardtenancy.internal.routing;

import io.github.shardtenancy.DirectoryEntry;

/** Which of two entries of one tenant a {@link Router} keeps. */
final class NewerEntry {

	private NewerEntry() {
	}

	/**
	 * The entry to keep of a cached one and an incoming one: the incoming one unless the cached one is newer. The map
	 * keeps the key String of a tenant's first entry for as long as the tenant stays cached, so an incoming entry with
	 * a tenant id String of its own (pgjdbc returns a new String per read, and so does a watcher's payload parse) is
	 * copied onto the key's instance; otherwise each changed entry would keep a second copy of its tenant id (56 bytes
	 * for a 13-character id; benchmarks/RESULTS.md, figure 5).
	 */
	static DirectoryEntry of(DirectoryEntry cached, DirectoryEntry incoming) {
		if (!incoming.isNewerOrSameAs(cached)) {
			return cached;
		}
		if (incoming.tenantId() == cached.tenantId()) {
			return incoming;
		}
		if (incoming.equals(cached)) {
			return cached; // the same entry read again (a resync): nothing to replace
		}
		return new DirectoryEntry(cached.tenantId(), incoming.shardId(), incoming.state(), incoming.targetShardId(),
				incoming.epoch(), incoming.version());
	}

}
