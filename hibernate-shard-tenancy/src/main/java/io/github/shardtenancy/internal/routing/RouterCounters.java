package io.github.shardtenancy.internal.routing;

import java.util.concurrent.atomic.LongAdder;

import io.github.shardtenancy.RouterStats;

/** The counters behind {@link Router#stats()}. Thread-safe. */
final class RouterCounters {

	final LongAdder hits = new LongAdder();

	final LongAdder misses = new LongAdder();

	final LongAdder negativeHits = new LongAdder();

	final LongAdder directoryReads = new LongAdder();

	final LongAdder invalidations = new LongAdder();

	final LongAdder syncs = new LongAdder();

	final LongAdder servedStale = new LongAdder();

	RouterStats snapshot(long cachedEntries, long version) {
		return new RouterStats(this.hits.sum(), this.misses.sum(), this.negativeHits.sum(), this.directoryReads.sum(),
				this.invalidations.sum(), this.syncs.sum(), this.servedStale.sum(), cachedEntries, version);
	}

}
