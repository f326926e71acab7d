package io.github.shardtenancy.micrometer;

import java.util.Objects;
import java.util.function.ToDoubleFunction;

import io.github.shardtenancy.Instances;
import io.github.shardtenancy.InstancesReport;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Micrometer metrics of the version skew across instances, read from the report of this instance's latest heartbeat
 * ({@link Instances#lastReport()}) when the registry publishes (no directory read at publication); every gauge is
 * {@code NaN} until the first heartbeat succeeded, and with the heartbeat disabled.
 *
 * <table>
 * <caption>Meters</caption>
 * <tr><th>Name</th><th>Type</th><th>What it shows</th></tr>
 * <tr><td>{@code shardtenancy.instances.live}</td><td>gauge</td><td>instances with a heartbeat within
 * {@code gone-after}, lagging ones included</td></tr>
 * <tr><td>{@code shardtenancy.instances.lagging}</td><td>gauge</td><td>live instances behind the directory for longer
 * than {@code max-lag}</td></tr>
 * <tr><td>{@code shardtenancy.instances.gone}</td><td>gauge</td><td>instances closed or silent, not removed
 * yet</td></tr>
 * <tr><td>{@code shardtenancy.instances.version.lowest}</td><td>gauge</td><td>the lowest directory version any live
 * instance has applied</td></tr>
 * <tr><td>{@code shardtenancy.instances.version.skew}</td><td>gauge</td><td>the directory's current version minus that
 * lowest version</td></tr>
 * </table>
 *
 * <p>Thread-safe.
 */
public final class InstanceSkewMetrics implements MeterBinder {

	private final Instances instances;

	/** @param instances the tenancy's instance heartbeat ({@code ShardTenancy.instances()}); never {@code null} */
	public InstanceSkewMetrics(Instances instances) {
		this.instances = Objects.requireNonNull(instances, "instances");
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		gauge(registry, "shardtenancy.instances.live", "Instances with a recent heartbeat, lagging ones included",
				(report) -> report.live().size());
		gauge(registry, "shardtenancy.instances.lagging",
				"Live instances behind the directory for longer than the maximum lag", (report) -> report.lagging().size());
		gauge(registry, "shardtenancy.instances.gone", "Instances closed or silent, not removed yet",
				(report) -> report.gone().size());
		gauge(registry, "shardtenancy.instances.version.lowest",
				"The lowest directory version any live instance has applied",
				(report) -> report.lowestAppliedVersion().isPresent() ? report.lowestAppliedVersion().getAsLong()
						: Double.NaN);
		gauge(registry, "shardtenancy.instances.version.skew",
				"The directory's current version minus the lowest version a live instance has applied",
				InstancesReport::skew);
	}

	private void gauge(MeterRegistry registry, String name, String description,
			ToDoubleFunction<InstancesReport> value) {
		Gauge.builder(name, this.instances,
				(i) -> i.lastReport().map(value::applyAsDouble).orElse(Double.NaN))
			.description(description)
			.register(registry);
	}

}
