package io.github.shardtenancy;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * The instances recorded in the directory database and the version skew among them, read at one moment.
 *
 * @param directoryVersion the directory's current version when the report was read
 * @param observedAt the directory database's clock when the report was read
 * @param instances every recorded instance, live, lagging and gone, by id; unmodifiable
 */
public record InstancesReport(long directoryVersion, Instant observedAt, List<InstanceRecord> instances) {

	/** @throws NullPointerException if a component is {@code null} */
	public InstancesReport {
		Objects.requireNonNull(observedAt, "observedAt");
		instances = List.copyOf(instances);
	}

	/** @return the live instances, lagging ones included; never {@code null} */
	public List<InstanceRecord> live() {
		return this.instances.stream().filter(InstanceRecord::live).toList();
	}

	/** @return the lagging instances; never {@code null} */
	public List<InstanceRecord> lagging() {
		return withState(InstanceState.LAGGING);
	}

	/** @return the gone instances (closed or silent), not removed yet; never {@code null} */
	public List<InstanceRecord> gone() {
		return withState(InstanceState.GONE);
	}

	private List<InstanceRecord> withState(InstanceState state) {
		return this.instances.stream().filter((instance) -> instance.state() == state).toList();
	}

	/** @return the lowest directory version any live instance has applied; empty with no live instance */
	public OptionalLong lowestAppliedVersion() {
		return this.instances.stream()
			.filter(InstanceRecord::live)
			.mapToLong(InstanceRecord::appliedVersion)
			.min();
	}

	/**
	 * @return the version skew: the directory's current version minus the lowest version a live instance has
	 * applied, 0 with no live instance (never negative)
	 */
	public long skew() {
		OptionalLong lowest = lowestAppliedVersion();
		return lowest.isPresent() ? Math.max(0, this.directoryVersion - lowest.getAsLong()) : 0;
	}

}
