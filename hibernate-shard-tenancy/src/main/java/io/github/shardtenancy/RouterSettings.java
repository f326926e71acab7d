package io.github.shardtenancy;

import java.time.Duration;
import java.util.Objects;

/**
 * Settings of a {@link TenantRouter}. Immutable; build with {@link #defaults()} and the {@code with...} methods.
 *
 * @param maximumEntries the most entries the cache holds before it evicts (least recently used first); at least 1
 * @param negativeTtl how long an unknown tenant is remembered as unknown; a few seconds at most, so that a tenant
 * created meanwhile becomes routable
 * @param syncInterval how often the background sync polls the directory version; the safety net when push
 * notifications are in use
 * @param directoryDownPolicy what lookups do while the directory is unreachable
 */
public record RouterSettings(long maximumEntries, Duration negativeTtl, Duration syncInterval,
		DirectoryDownPolicy directoryDownPolicy) {

	public RouterSettings {
		Objects.requireNonNull(negativeTtl, "negativeTtl");
		Objects.requireNonNull(syncInterval, "syncInterval");
		Objects.requireNonNull(directoryDownPolicy, "directoryDownPolicy");
		if (maximumEntries < 1) {
			throw new IllegalArgumentException("maximumEntries must be at least 1, was " + maximumEntries);
		}
		if (syncInterval.isNegative() || syncInterval.isZero()) {
			throw new IllegalArgumentException("syncInterval must be positive, was " + syncInterval);
		}
	}

	/** @return 10,000,000 entries, 2 s negative TTL, 1 s sync interval, serve from cache */
	public static RouterSettings defaults() {
		return new RouterSettings(10_000_000, Duration.ofSeconds(2), Duration.ofSeconds(1),
				DirectoryDownPolicy.SERVE_FROM_CACHE);
	}

	/** @param value see {@link #maximumEntries()} @return a copy with it changed */
	public RouterSettings withMaximumEntries(long value) {
		return new RouterSettings(value, this.negativeTtl, this.syncInterval, this.directoryDownPolicy);
	}

	/** @param value see {@link #negativeTtl()} @return a copy with it changed */
	public RouterSettings withNegativeTtl(Duration value) {
		return new RouterSettings(this.maximumEntries, value, this.syncInterval, this.directoryDownPolicy);
	}

	/** @param value see {@link #syncInterval()} @return a copy with it changed */
	public RouterSettings withSyncInterval(Duration value) {
		return new RouterSettings(this.maximumEntries, this.negativeTtl, value, this.directoryDownPolicy);
	}

	/** @param value see {@link #directoryDownPolicy()} @return a copy with it changed */
	public RouterSettings withDirectoryDownPolicy(DirectoryDownPolicy value) {
		return new RouterSettings(this.maximumEntries, this.negativeTtl, this.syncInterval, value);
	}

}
