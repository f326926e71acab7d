package io.github.shardtenancy.boot.actuate;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import io.github.shardtenancy.InvalidTenantIdException;
import io.github.shardtenancy.ShardTenancyException;
import io.github.shardtenancy.TenantIds;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.RouterStats;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.TenantMover;
import io.github.shardtenancy.TenantRouter;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.MoveStatus;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * The Actuator endpoint {@code shardtenancy}: what this instance knows about the directory and its shards, one
 * tenant's placement, and starting an online move. Exposed like any Actuator endpoint (over HTTP only when listed in
 * {@code management.endpoints.web.exposure.include}); the write operation moves tenants, so secure it as an
 * administrative operation.
 *
 * <ul>
 * <li>read ({@code GET /actuator/shardtenancy}): the directory version this instance holds, readiness, the
 * directory-down state and policy, the push listener's state, the router's cache statistics, and every shard with
 * its HikariCP pool statistics (connections active, idle, total, threads waiting).</li>
 * <li>read one tenant ({@code GET /actuator/shardtenancy/{tenant}}): the entry in this instance's cache, the entry
 * in the directory now (its shard is the owner), and the tenant's unfinished move, if any.</li>
 * <li>write ({@code POST /actuator/shardtenancy/{tenant}} with {@code {"targetShard": "shard-2"}}): starts an online
 * move of the tenant on the mover's executor and answers with the move's status as soon as it is recorded (or its
 * error if it was refused). Needs a {@link TenantMover} bean.</li>
 * <li>read the timeline ({@code GET /actuator/shardtenancy/timeline/{seconds}}): the {@link Timeline} of the last
 * {@code seconds} seconds (committed transactions, retries and fence rejections per second, in total and per tenant
 * being moved, and each move's freeze window), when a {@link TimelineRecorder} is set.</li>
 * </ul>
 * Thread-safe.
 */
@Endpoint(id = "shardtenancy")
public class ShardTenancyEndpoint {

	private final ShardTenancy tenancy;

	private final TenantRouter router;

	private final WatcherState listener;

	private final ObjectProvider<TenantMover> mover;

	private final MoveSettings moveSettings;

	private volatile @Nullable TimelineRecorder timeline;

	/**
	 * An endpoint whose moves run with {@link MoveSettings#defaults()}.
	 * @param tenancy the tenancy (its router, shards and directory); never {@code null}
	 * @param listener the push listener's state; never {@code null}
	 * @param mover the mover, if the application has one; never {@code null}
	 */
	public ShardTenancyEndpoint(ShardTenancy tenancy, WatcherState listener, ObjectProvider<TenantMover> mover) {
		this(tenancy, listener, mover, MoveSettings.defaults());
	}

	/**
	 * @param tenancy the tenancy (its router, shards and directory); never {@code null}
	 * @param listener the push listener's state; never {@code null}
	 * @param mover the mover, if the application has one; never {@code null}
	 * @param moveSettings the settings of the moves it starts (the {@code shard-tenancy.move.*} ones); never
	 * {@code null}
	 */
	public ShardTenancyEndpoint(ShardTenancy tenancy, WatcherState listener, ObjectProvider<TenantMover> mover,
			MoveSettings moveSettings) {
		this.tenancy = Objects.requireNonNull(tenancy, "tenancy");
		this.router = tenancy.router();
		this.listener = Objects.requireNonNull(listener, "listener");
		this.mover = Objects.requireNonNull(mover, "mover");
		this.moveSettings = Objects.requireNonNull(moveSettings, "moveSettings");
	}

	/** @return the instance's view of the directory, its cache and its shards */
	@ReadOperation
	public Map<String, Object> overview() {
		Map<String, Object> out = new LinkedHashMap<>();
		out.put("directoryVersion", this.router.version());
		out.put("ready", this.router.isReady());
		out.put("directoryDownPolicy", this.router.settings().directoryDownPolicy().name());
		out.put("directoryDownSince", this.router.directoryDownSince().map(Object::toString).orElse(null));
		Map<String, Object> listenerState = this.listener.describe();
		out.put("listener", listenerState != null ? listenerState : "none");
		RouterStats stats = this.router.stats();
		Map<String, Object> cache = new LinkedHashMap<>();
		cache.put("entries", stats.cachedEntries());
		cache.put("hits", stats.hits());
		cache.put("misses", stats.misses());
		cache.put("negativeHits", stats.negativeHits());
		cache.put("directoryReads", stats.directoryReads());
		cache.put("invalidations", stats.invalidations());
		cache.put("syncs", stats.syncs());
		cache.put("servedStale", stats.servedStale());
		out.put("cache", cache);
		Map<String, Object> shards = new LinkedHashMap<>();
		for (String shardId : this.tenancy.topology().shardIds().stream().sorted().toList()) {
			shards.put(shardId, shard(shardId));
		}
		out.put("shards", shards);
		return out;
	}

	private Map<String, Object> shard(String shardId) {
		Map<String, Object> out = new LinkedHashMap<>();
		out.put("fenceDialect", this.tenancy.fenceDialect(shardId).getClass().getSimpleName());
		if (this.tenancy.topology().dataSource(shardId) instanceof HikariDataSource hikari) {
			out.put("poolName", hikari.getPoolName());
			out.put("maximumPoolSize", hikari.getMaximumPoolSize());
			HikariPoolMXBean pool = hikari.getHikariPoolMXBean();
			if (pool != null) {
				Map<String, Object> connections = new LinkedHashMap<>();
				connections.put("active", pool.getActiveConnections());
				connections.put("idle", pool.getIdleConnections());
				connections.put("total", pool.getTotalConnections());
				connections.put("threadsAwaiting", pool.getThreadsAwaitingConnection());
				out.put("connections", connections);
			}
		}
		return out;
	}

	/**
	 * @param tenant the tenant
	 * @return its cached entry ({@code null} if not cached), its directory entry ({@code null} if unknown), its owner
	 * shard, and its unfinished move ({@code null} if none, or without a mover)
	 * @throws InvalidEndpointRequestException (HTTP 400) if the tenant id breaks the tenant id rule
	 */
	@ReadOperation
	public Map<String, Object> tenant(@Selector String tenant) {
		requireValid(tenant);
		Map<String, Object> out = new LinkedHashMap<>();
		out.put("tenant", tenant);
		out.put("cached", this.router.cached(tenant).map(ShardTenancyEndpoint::entry).orElse(null));
		Optional<DirectoryEntry> entry = this.tenancy.admin().find(tenant);
		out.put("directory", entry.map(ShardTenancyEndpoint::entry).orElse(null));
		out.put("owner", entry.map(DirectoryEntry::shardId).orElse(null));
		TenantMover tenantMover = this.mover.getIfAvailable();
		out.put("move", tenantMover != null ? tenantMover.findActive(tenant).map(ShardTenancyEndpoint::move).orElse(null)
				: null);
		return out;
	}

	/**
	 * Starts an online move (with this endpoint's move settings) and answers once it is recorded; the mover's executor
	 * runs it.
	 * @param tenant the tenant to move
	 * @param targetShard the shard to move it to
	 * @return the move's status ({@code moveId}, {@code step}, ...), or {@code error} with the reason it was refused
	 * @throws InvalidEndpointRequestException (HTTP 400) if the tenant id is invalid, the target is blank, or no
	 * {@link TenantMover} bean exists
	 */
	@WriteOperation
	public Map<String, Object> move(@Selector String tenant, String targetShard) {
		requireValid(tenant);
		if (targetShard == null || targetShard.isBlank()) {
			throw new InvalidEndpointRequestException("targetShard is required", "targetShard is required");
		}
		TenantMover tenantMover = this.mover.getIfAvailable();
		if (tenantMover == null) {
			throw new InvalidEndpointRequestException("No TenantMover bean: moves cannot be started here",
					"No mover is configured");
		}
		try {
			return move(tenantMover.status(tenantMover.move(tenant, targetShard, this.moveSettings)));
		}
		catch (ShardTenancyException ex) {
			return error(tenant, targetShard, ex);
		}
	}

	/**
	 * Serves this instance's per-second timeline of the last {@code seconds} seconds
	 * ({@code GET /actuator/shardtenancy/timeline/{seconds}}).
	 * @param timeline the word {@code timeline}
	 * @param seconds how many seconds back from now, the current one included; 1 to the recorder's window
	 * ({@code shard-tenancy.timeline.window})
	 * @return the timeline; never {@code null}
	 * @throws InvalidEndpointRequestException (HTTP 400) if the first selector is not {@code timeline}, if
	 * {@code seconds} is out of range, or if no timeline is recorded ({@code shard-tenancy.timeline.enabled=false})
	 */
	@ReadOperation
	public Timeline timeline(@Selector String timeline, @Selector int seconds) {
		if (!"timeline".equals(timeline)) {
			throw new InvalidEndpointRequestException("Unknown view '" + timeline + "': only 'timeline' is served",
					"Unknown view");
		}
		TimelineRecorder recorder = this.timeline;
		if (recorder == null) {
			throw new InvalidEndpointRequestException(
					"No timeline is recorded: shard-tenancy.timeline.enabled is false", "No timeline is recorded");
		}
		try {
			return recorder.timeline(seconds);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidEndpointRequestException(ex.getMessage(), ex.getMessage());
		}
	}

	/**
	 * @param timeline the recorder {@link #timeline(String, int)} serves, or {@code null} for none; set once, before
	 * the endpoint is exposed
	 */
	public void setTimeline(@Nullable TimelineRecorder timeline) {
		this.timeline = timeline;
	}

	private static void requireValid(String tenant) {
		try {
			TenantIds.requireValid(tenant);
		}
		catch (InvalidTenantIdException ex) {
			throw new InvalidEndpointRequestException(ex.getMessage(), ex.getMessage());
		}
	}

	private static Map<String, Object> error(String tenant, String targetShard, Throwable failure) {
		Map<String, Object> out = new LinkedHashMap<>();
		out.put("tenant", tenant);
		out.put("targetShard", targetShard);
		out.put("error", failure.getClass().getSimpleName() + ": " + failure.getMessage());
		if (failure instanceof ShardTenancyException typed && typed.shardId() != null) {
			out.put("shard", typed.shardId());
		}
		return out;
	}

	private static Map<String, Object> entry(DirectoryEntry entry) {
		Map<String, Object> out = new LinkedHashMap<>();
		out.put("shard", entry.shardId());
		out.put("state", entry.state().name());
		out.put("targetShard", entry.targetShardId());
		out.put("epoch", entry.epoch());
		out.put("version", entry.version());
		return out;
	}

	private static Map<String, Object> move(MoveStatus status) {
		Map<String, Object> out = new LinkedHashMap<>();
		out.put("moveId", status.moveId());
		out.put("tenant", status.tenantId());
		out.put("sourceShard", status.sourceShardId());
		out.put("targetShard", status.targetShardId());
		out.put("step", status.step().name());
		out.put("stepData", status.stepData());
		out.put("createdAt", String.valueOf(status.createdAt()));
		out.put("frozenAt", status.frozenAt() != null ? status.frozenAt().toString() : null);
		out.put("flippedAt", status.flippedAt() != null ? status.flippedAt().toString() : null);
		out.put("freezeWindowMs", status.freezeWindow().map(Duration::toMillis).orElse(null));
		out.put("error", status.error());
		return out;
	}

}
