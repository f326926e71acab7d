package io.github.shardtenancy.boot.actuate;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

import io.github.shardtenancy.InstanceRecord;
import io.github.shardtenancy.InstanceSettings;
import io.github.shardtenancy.Instances;
import io.github.shardtenancy.InstancesReport;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * The Actuator endpoint {@code shardtenancyinstances} ({@code GET /actuator/shardtenancyinstances}): the instances
 * recorded by the instance heartbeat in the directory database, read now, with the directory version each has
 * applied and the version skew among them. A separate endpoint from {@code shardtenancy}, whose single-selector path
 * is a tenant id. Read only. Thread-safe.
 */
@Endpoint(id = "shardtenancyinstances", defaultAccess = Access.READ_ONLY)
public class ShardTenancyInstancesEndpoint {

	private final Instances instances;

	/**
	 * @param instances the tenancy's instance heartbeat; never {@code null}
	 */
	public ShardTenancyInstancesEndpoint(Instances instances) {
		this.instances = Objects.requireNonNull(instances, "instances");
	}

	/**
	 * @return every instance with its applied directory version and state, and the version skew; never {@code null}
	 * @throws InvalidEndpointRequestException (HTTP 400) if the heartbeat is disabled
	 * ({@code shard-tenancy.instances.enabled=false})
	 * @throws io.github.shardtenancy.DirectoryUnavailableException if the directory cannot be read
	 */
	@ReadOperation
	public InstancesDescriptor instances() {
		if (!this.instances.settings().enabled()) {
			throw new InvalidEndpointRequestException("The instance heartbeat is disabled: "
					+ "shard-tenancy.instances.enabled is false", "The instance heartbeat is disabled");
		}
		return InstancesDescriptor.of(this.instances.instanceId(), this.instances.settings(), this.instances.report());
	}

	/**
	 * The instances recorded in the directory database and the version skew among them
	 * ({@link io.github.shardtenancy.InstancesReport}).
	 * @param thisInstance this instance's id
	 * @param directoryVersion the directory's current version
	 * @param observedAt the directory database's clock when read
	 * @param lowestAppliedVersion the lowest directory version a live instance has applied, or {@code null} with none
	 * @param skew {@code directoryVersion} minus {@code lowestAppliedVersion}
	 * @param live how many instances are live (lagging ones included)
	 * @param lagging how many live instances are behind for longer than {@code maxLag}
	 * @param gone how many instances are closed or silent, not removed yet
	 * @param maxLag how long an instance may take to apply a version ({@code shard-tenancy.instances.max-lag})
	 * @param instances every instance, by id
	 */
	public record InstancesDescriptor(String thisInstance, long directoryVersion, Instant observedAt,
			@Nullable Long lowestAppliedVersion, long skew, int live, int lagging, int gone, Duration maxLag,
			List<InstanceRecord> instances) implements OperationResponseBody {

		static InstancesDescriptor of(String thisInstance, InstanceSettings settings, InstancesReport report) {
			return new InstancesDescriptor(thisInstance, report.directoryVersion(), report.observedAt(),
					report.lowestAppliedVersion().isPresent() ? report.lowestAppliedVersion().getAsLong() : null,
					report.skew(), report.live().size(), report.lagging().size(), report.gone().size(),
					settings.maxLag(), report.instances());
		}

	}

}
