package io.github.shardtenancy.boot.actuate;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

import io.github.shardtenancy.TenantRouter;
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
 * {@code directoryDownPolicy}, {@code listener} (its state, or {@code none}). Thread-safe.
 */
public final class ShardTenancyHealthIndicator implements HealthIndicator {

	private final TenantRouter router;

	private final WatcherState listener;

	/**
	 * @param router the router; never {@code null}
	 * @param listener the push listener's state; {@link WatcherState#NONE} without one; never {@code null}
	 */
	public ShardTenancyHealthIndicator(TenantRouter router, WatcherState listener) {
		this.router = Objects.requireNonNull(router, "router");
		this.listener = Objects.requireNonNull(listener, "listener");
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
		Health.Builder health = this.router.isReady() ? Health.up() : Health.down();
		return health.withDetails(details).build();
	}

}
