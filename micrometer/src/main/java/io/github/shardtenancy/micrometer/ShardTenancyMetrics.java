package io.github.shardtenancy.micrometer;

import java.util.Objects;
import java.util.concurrent.TimeUnit;

import io.github.shardtenancy.RouterStats;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.TenantRouter;
import io.github.shardtenancy.spi.ShardTenancyObserver;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.jspecify.annotations.Nullable;

/**
 * Micrometer metrics of one router and of the work that uses it: the shard fence's rejections, the retry, the
 * router's cache and the directory reads behind it, and moves. Names follow Micrometer's conventions (dot-separated,
 * lower case; each registry renders them its own way, e.g. {@code shardtenancy_fence_rejections_total} in
 * Prometheus). No meter is tagged with a tenant id (tenants are too many to be a dimension).
 *
 * <table>
 * <caption>Meters</caption>
 * <tr><th>Name</th><th>Type</th><th>Tags</th><th>What it counts or measures</th></tr>
 * <tr><td>{@code shardtenancy.fence.rejections}</td><td>counter</td><td>{@code shard}, {@code reason}</td><td>attempts
 * a shard fence rejected, as seen by the retry layer</td></tr>
 * <tr><td>{@code shardtenancy.retries}</td><td>counter</td><td></td><td>failed attempts run again (fence rejections and
 * serialization failures)</td></tr>
 * <tr><td>{@code shardtenancy.retries.exhausted}</td><td>counter</td><td></td><td>calls that gave up with
 * {@code RetriesExhaustedException}</td></tr>
 * <tr><td>{@code shardtenancy.retries.mismatches}</td><td>counter</td><td>{@code table}</td><td>re-runs whose
 * {@code UPDATE} matched no row of a table a failed attempt had inserted into ({@code RerunMismatchException})</td></tr>
 * <tr><td>{@code shardtenancy.router.lookups}</td><td>function counter</td><td>{@code result} = {@code hit},
 * {@code miss}, {@code negative_hit}</td><td>router lookups answered from the cache, by reading the directory, or
 * "unknown" from the negative cache</td></tr>
 * <tr><td>{@code shardtenancy.router.served.stale}</td><td>function counter</td><td></td><td>lookups answered from the
 * cache while the directory was unreachable</td></tr>
 * <tr><td>{@code shardtenancy.router.invalidations}</td><td>function counter</td><td></td><td>entries dropped (one per
 * fence rejection)</td></tr>
 * <tr><td>{@code shardtenancy.router.syncs}</td><td>function counter</td><td></td><td>background syncs or pushes that
 * applied changed entries</td></tr>
 * <tr><td>{@code shardtenancy.router.directory.version}</td><td>gauge</td><td></td><td>the directory version this
 * instance holds</td></tr>
 * <tr><td>{@code shardtenancy.router.cache.entries}</td><td>gauge</td><td></td><td>entries cached (Caffeine's
 * estimate)</td></tr>
 * <tr><td>{@code shardtenancy.directory.lookups}</td><td>timer</td><td>{@code result} = {@code found},
 * {@code unknown}</td><td>single-entry directory reads made on cache misses (hits are not timed: they cost
 * nanoseconds and a timer would cost more)</td></tr>
 * <tr><td>{@code shardtenancy.moves}</td><td>timer</td><td>{@code mover} = {@code basic}, {@code online};
 * {@code source}, {@code target}</td><td>moves, from their start to the flip</td></tr>
 * <tr><td>{@code shardtenancy.moves.freeze}</td><td>timer</td><td>{@code mover}, {@code source},
 * {@code target}</td><td>freeze windows: how long a moving tenant's writes were refused</td></tr>
 * <tr><td>{@code shardtenancy.dualread}</td><td>counter</td><td>{@code query}; {@code outcome} = {@code match},
 * {@code behind}, {@code mismatch}, {@code error}, {@code skipped}</td><td>dual reads of moving tenants
 * ({@code DualRead}) by outcome</td></tr>
 * </table>
 *
 * <p>{@link #bindTo(MeterRegistry)} registers the meters. The event meters (rejections, retries, directory reads, moves)
 * count what this object is told as a {@link ShardTenancyObserver}: add it to the tenancy
 * ({@link ShardTenancy#addObserver}), besides any observer added before. Bind it to one
 * registry (with several, use a {@code CompositeMeterRegistry}): a second {@code bindTo} moves the event meters to
 * the new registry. The counter and gauge values of the router are read from {@link TenantRouter#stats()} when the
 * registry publishes.
 *
 * <p>Thread-safe. The observer methods never block; a rejection or a move looks its tagged meter up in the registry.
 */
public final class ShardTenancyMetrics implements MeterBinder, ShardTenancyObserver {

	private final TenantRouter router;

	private volatile Meters meters;

	/**
	 * @param router the router whose counters are published; never {@code null}. Add this object as an observer too
	 * ({@link ShardTenancy#addObserver}) for the event meters.
	 */
	public ShardTenancyMetrics(TenantRouter router) {
		this.router = Objects.requireNonNull(router, "router");
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		lookups(registry, "hit", RouterStats::hits);
		lookups(registry, "miss", RouterStats::misses);
		lookups(registry, "negative_hit", RouterStats::negativeHits);
		FunctionCounter.builder("shardtenancy.router.served.stale", this.router, (r) -> r.stats().servedStale())
			.description("Lookups answered from the cache while the directory was unreachable")
			.register(registry);
		FunctionCounter.builder("shardtenancy.router.invalidations", this.router, (r) -> r.stats().invalidations())
			.description("Router entries dropped after a fence rejection")
			.register(registry);
		FunctionCounter.builder("shardtenancy.router.syncs", this.router, (r) -> r.stats().syncs())
			.description("Directory syncs (poll or push) that applied changed entries")
			.register(registry);
		Gauge.builder("shardtenancy.router.directory.version", this.router, TenantRouter::version)
			.description("The directory version this instance holds")
			.register(registry);
		Gauge.builder("shardtenancy.router.cache.entries", this.router, (r) -> r.stats().cachedEntries())
			.description("Directory entries in the router's cache (estimate)")
			.register(registry);
		this.meters = new Meters(registry);
	}

	private void lookups(MeterRegistry registry, String result, java.util.function.ToLongFunction<RouterStats> value) {
		FunctionCounter.builder("shardtenancy.router.lookups", this.router, (r) -> value.applyAsLong(r.stats()))
			.description("Router lookups by result: hit (cache), miss (directory read), negative_hit (known unknown)")
			.tag("result", result)
			.register(registry);
	}

	@Override
	public void fenceRejected(String shardId, String reason) {
		Meters m = this.meters;
		if (m != null) {
			m.rejections.withTags("shard", shardId, "reason", reason).increment();
		}
	}

	@Override
	public void retried() {
		Meters m = this.meters;
		if (m != null) {
			m.retries.increment();
		}
	}

	@Override
	public void rerunMismatch(@Nullable String tenantId, String table) {
		Meters m = this.meters;
		if (m != null) {
			m.mismatches.withTags("table", table).increment();
		}
	}

	@Override
	public void retriesExhausted() {
		Meters m = this.meters;
		if (m != null) {
			m.exhausted.increment();
		}
	}

	@Override
	public void directoryLookup(long nanos, boolean found) {
		Meters m = this.meters;
		if (m != null) {
			(found ? m.lookupFound : m.lookupUnknown).record(nanos, TimeUnit.NANOSECONDS);
		}
	}

	@Override
	public void moveFlipped(String mover, String sourceShardId, String targetShardId, long totalNanos,
			long freezeNanos) {
		Meters m = this.meters;
		if (m != null) {
			m.moves.withTags("mover", mover, "source", sourceShardId, "target", targetShardId)
				.record(totalNanos, TimeUnit.NANOSECONDS);
			m.freezes.withTags("mover", mover, "source", sourceShardId, "target", targetShardId)
				.record(freezeNanos, TimeUnit.NANOSECONDS);
		}
	}

	@Override
	public void dualRead(String name, String outcome, long nanos) {
		Meters m = this.meters;
		if (m != null) {
			m.dualReads.withTags("query", name, "outcome", outcome).increment();
		}
	}

	/** The event meters of one registry. */
	private static final class Meters {

		final Meter.MeterProvider<Counter> rejections;

		final Counter retries;

		final Counter exhausted;

		final Meter.MeterProvider<Counter> mismatches;

		final Timer lookupFound;

		final Timer lookupUnknown;

		final Meter.MeterProvider<Timer> moves;

		final Meter.MeterProvider<Timer> freezes;

		final Meter.MeterProvider<Counter> dualReads;

		Meters(MeterRegistry registry) {
			this.rejections = Counter.builder("shardtenancy.fence.rejections")
				.description("Attempts rejected by a shard fence, by shard and reason")
				.withRegistry(registry);
			this.retries = Counter.builder("shardtenancy.retries")
				.description("Failed attempts (fence rejections, serialization failures) run again")
				.register(registry);
			this.exhausted = Counter.builder("shardtenancy.retries.exhausted")
				.description("Calls that gave up with RetriesExhaustedException")
				.register(registry);
			this.mismatches = Counter.builder("shardtenancy.retries.mismatches")
				.description("Re-runs whose UPDATE matched no row of a table a failed attempt had inserted into")
				.withRegistry(registry);
			this.lookupFound = lookupTimer(registry, "found");
			this.lookupUnknown = lookupTimer(registry, "unknown");
			this.moves = Timer.builder("shardtenancy.moves")
				.description("Tenant moves, from their start to the flip")
				.withRegistry(registry);
			this.freezes = Timer.builder("shardtenancy.moves.freeze")
				.description("Freeze windows: how long a moving tenant's writes were refused")
				.withRegistry(registry);
			this.dualReads = Counter.builder("shardtenancy.dualread")
				.description("Dual reads of moving tenants by query and outcome (match, behind, mismatch, error, "
						+ "skipped)")
				.withRegistry(registry);
		}

		private static Timer lookupTimer(MeterRegistry registry, String result) {
			return Timer.builder("shardtenancy.directory.lookups")
				.description("Single-entry directory reads made on router cache misses")
				.tag("result", result)
				.register(registry);
		}

	}

}
