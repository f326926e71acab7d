package io.github.shardtenancy.boot.actuate;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

import io.github.shardtenancy.InstanceRecord;
import io.github.shardtenancy.Instances;
import io.github.shardtenancy.InstancesReport;
import io.github.shardtenancy.TenantRouter;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * Readiness of this instance to route tenants, as the directory-down policy decides: DOWN until the
 * router has loaded the directory once, and while the directory is unreachable under the {@code fail-closed} policy
 * ({@link TenantRouter#isReady()}); UP otherwise, also while the directory is unreachable under
 * {@code serve-from-cache} (the details then say since when). A push listener that is not listening does not make
 * the instance unready (the router's poll still syncs it); it is shown in the details.
 *
 * <p>Details: {@code directoryVersion}, {@code ready}, {@code directoryDownSince} (when unreachable),
 * {@code directoryDownPolicy}, {@code listener} (its state, or {@code none}) and, with the instance heartbeat on,
 * {@code instances}: the version skew across instances as this instance's latest heartbeat read it ({@code live},
 * {@code lagging} (their ids), {@code gone}, {@code lowestAppliedVersion}, {@code skew}, {@code observedAt}), or
 * {@code no heartbeat yet}. Lagging instances never make this indicator DOWN: this instance routes correctly whatever
 * others do (their stale work is rejected by the shard fence), and a DOWN here would take this instance out of
 * service for another's fault. Thread-safe.
 */
public final class ShardTenancyHealthIndicator implements HealthIndicator {

	private final TenantRouter router;

	private final WatcherState listener;

	private final @Nullable Instances instances;

	/**
	 * @param router the router; never {@code null}
	 * @param listener the push listener's state; {@link WatcherState#NONE} without one; never {@code null}
	 */
	public ShardTenancyHealthIndicator(TenantRouter router, WatcherState listener) {
		this(router, listener, null);
	}

	/**
	 * @param router the router; never {@code null}
	 * @param listener the push listener's state; {@link WatcherState#NONE} without one; never {@code null}
	 * @param instances the tenancy's instance heartbeat, or {@code null} for no {@code instances} detail
	 */
	public ShardTenancyHealthIndicator(TenantRouter router, WatcherState listener, @Nullable Instances instances) {
		this.router = Objects.requireNonNull(router, "router");
		this.listener = Objects.requireNonNull(listener, "listener");
		this.instances = instances;
	}

	@Override
	public Health health() {
		Map<String, Object> details = new LinkedHashMap<>();
		details.put("directoryVersion", this.router.version());
		details.put("ready", this.router.isReady());
		this.router.directoryDownSince().ifPresent((since) -> details.put("directoryDownSince", since.toString()));
		details.put("directoryDownPolicy", this.router.settings().directoryDownPolicy().name());
		Map<String, Object> listenerState = this.listener.describe();
		details.put("listener", listenerState != null ? listenerState : "none");
		Instances heartbeat = this.instances;
		if (heartbeat != null && heartbeat.settings().enabled()) {
			details.put("instances", heartbeat.lastReport().<Object>map(ShardTenancyHealthIndicator::skew)
				.orElse("no heartbeat yet"));
		}
		Health.Builder health = this.router.isReady() ? Health.up() : Health.down();
		return health.withDetails(details).build();
	}

	private static Map<String, Object> skew(InstancesReport report) {
		Map<String, Object> out = new LinkedHashMap<>();
		out.put("live", report.live().size());
		out.put("lagging", report.lagging().stream().map(InstanceRecord::instanceId).toList());
		out.put("gone", report.gone().size());
		report.lowestAppliedVersion().ifPresent((lowest) -> out.put("lowestAppliedVersion", lowest));
		out.put("skew", report.skew());
		out.put("observedAt", report.observedAt().toString());
		return out;
	}

}
