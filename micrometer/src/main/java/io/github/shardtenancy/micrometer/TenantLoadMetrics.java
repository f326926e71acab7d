package io.github.shardtenancy.micrometer;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.ToLongFunction;

import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.TenantLoad;
import io.github.shardtenancy.TenantLoads;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.jspecify.annotations.Nullable;

/**
 * Gauges of this instance's traffic per shard in the load window ({@link TenantLoads#traffic()}, with
 * {@code ShardTenancyBuilder.loadTracking} on), tagged {@code shard}, and also {@code tenant} when the application
 * chooses (high cardinality: one series per tenant seen in the window):
 * <ul>
 * <li>{@code shardtenancy.load.transactions}: transactions ended;</li>
 * <li>{@code shardtenancy.load.rows.written}: rows written by committed transactions;</li>
 * <li>{@code shardtenancy.load.time}: time tenant connections were held, in seconds.</li>
 * </ul>
 * The series are the shards of the topology (without the tenant tag) or the tenants seen in the window, as of the last
 * {@link #refresh()}: call it periodically (the Spring Boot module does, every
 * {@code shard-tenancy.load.metrics-refresh}). Each refresh reads the traffic once; the gauges read that snapshot.
 * Thread-safe.
 */
public final class TenantLoadMetrics implements MeterBinder {

	private final ShardTenancy tenancy;

	private final boolean tenantTag;

	/** The three gauges of each registry bound. */
	private final List<MultiGauge[]> gauges = new ArrayList<>();

	private volatile Map<String, long[]> snapshot = Map.of();

	/**
	 * @param tenancy the tenancy whose {@link ShardTenancy#load()} is read; never {@code null}
	 * @param tenantTag whether to add a {@code tenant} tag (one series per tenant); off unless the application chose
	 */
	public TenantLoadMetrics(ShardTenancy tenancy, boolean tenantTag) {
		this.tenancy = Objects.requireNonNull(tenancy, "tenancy");
		this.tenantTag = tenantTag;
	}

	@Override
	public synchronized void bindTo(MeterRegistry registry) {
		this.gauges.add(new MultiGauge[] { MultiGauge.builder("shardtenancy.load.transactions")
			.description("Transactions of tenants seen by this instance in the load window")
			.register(registry),
				MultiGauge.builder("shardtenancy.load.rows.written")
					.description("Rows written by committed transactions of tenants seen by this instance in the "
							+ "load window")
					.register(registry),
				MultiGauge.builder("shardtenancy.load.time")
					.description("Time tenant connections were held on this instance in the load window")
					.baseUnit("seconds")
					.register(registry) });
		refresh();
	}

	/** Reads the traffic once and updates the series (new shards or tenants appear, gone tenants disappear). */
	public synchronized void refresh() {
		Map<String, long[]> sums = new HashMap<>();
		if (!this.tenantTag) {
			for (String shardId : this.tenancy.topology().shardIds()) {
				sums.put(key(shardId, null), new long[3]);
			}
		}
		for (TenantLoad load : this.tenancy.load().traffic()) {
			long[] sum = sums.computeIfAbsent(key(load.shardId(), this.tenantTag ? load.tenantId() : null),
					k -> new long[3]);
			sum[0] += load.transactions();
			sum[1] += load.rowsWritten();
			sum[2] += load.nanosSpent();
		}
		this.snapshot = sums;
		for (MultiGauge[] bound : this.gauges) {
			register(bound[0], sums, s -> s[0], 1);
			register(bound[1], sums, s -> s[1], 1);
			register(bound[2], sums, s -> s[2], 1e-9);
		}
	}

	private void register(MultiGauge gauge, Map<String, long[]> sums, ToLongFunction<long[]> value, double scale) {
		List<MultiGauge.Row<?>> rows = new ArrayList<>(sums.size());
		for (String key : sums.keySet()) {
			rows.add(MultiGauge.Row.of(tags(key), this, m -> {
				long[] sum = m.snapshot.get(key);
				return sum != null ? value.applyAsLong(sum) * scale : 0;
			}));
		}
		gauge.register(rows, true);
	}

	private static String key(String shardId, @Nullable String tenantId) {
		return tenantId == null ? shardId : shardId + '\u0000' + tenantId;
	}

	private static Tags tags(String key) {
		int split = key.indexOf('\u0000');
		return split < 0 ? Tags.of("shard", key)
				: Tags.of("shard", key.substring(0, split), "tenant", key.substring(split + 1));
	}

}
