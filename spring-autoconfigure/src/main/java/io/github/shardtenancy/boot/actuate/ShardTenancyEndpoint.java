package io.github.shardtenancy.boot.actuate;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import io.github.shardtenancy.DirectoryDownPolicy;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.MoveCheck;
import io.github.shardtenancy.InvalidTenantIdException;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.MoveStatus;
import io.github.shardtenancy.MoveStep;
import io.github.shardtenancy.RouterStats;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.TenantIds;
import io.github.shardtenancy.TenantMover;
import io.github.shardtenancy.TenantRouter;
import io.github.shardtenancy.TenantState;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * The Actuator endpoint {@code shardtenancy}: what this instance knows about the directory and its shards, one
 * tenant's placement, and starting an online move. Exposed like any Actuator endpoint (over HTTP only when listed in
 * {@code management.endpoints.web.exposure.include}).
 *
 * <p>Its default access is {@link Access#READ_ONLY}: the write and delete operations, which move, create and delete
 * tenants, exist only once
 * {@code management.endpoint.shardtenancy.access=unrestricted} (or {@code management.endpoints.access.default})
 * allows it, as Actuator's access model decides for every endpoint; secure it as an administrative operation.
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
 * <li>read a move's pre-flight check ({@code GET /actuator/shardtenancy/{tenant}/check/{targetShard}}): what
 * {@link TenantMover#check} finds, changing nothing.</li>
 * <li>write ({@code POST /actuator/shardtenancy/{tenant}/create}, optionally with {@code {"shard": "shard-2"}}):
 * creates the tenant, as {@code TenantAdmin.create} does; delete ({@code DELETE /actuator/shardtenancy/{tenant}}):
 * deletes it, as {@code TenantAdmin.delete} does.</li>
 * <li>read the timeline ({@code GET /actuator/shardtenancy/timeline/{seconds}}): the {@link Timeline} of the last
 * {@code seconds} seconds (committed transactions, retries and fence rejections per second, in total and per tenant
 * being moved, and each move's freeze window), when a {@link TimelineRecorder} is set.</li>
 * </ul>
 *
 * <p>Tenant ids are sensitive, and are treated as Spring Boot's {@code env} endpoint treats values
 * ({@code management.endpoint.env.show-values}): this endpoint's {@link Show} setting
 * ({@code management.endpoint.shardtenancy.show-values}, default {@link Show#NEVER}) decides whether they are shown.
 * When they are not, the one-tenant read answers as for an unknown tenant, without reading anything, so that it
 * cannot tell whether a tenant exists; and the timeline's tenants are replaced by {@code ******}. The overview names
 * no tenant. Over JMX, {@link Show#WHEN_AUTHORIZED} shows them, as Boot's endpoints do; over HTTP,
 * {@link ShardTenancyEndpointWebExtension} decides from the request's security context and answers refusals with a
 * status and an RFC 9457 problem body. The write operation, once allowed, names the tenant it was given. Thread-safe.
 */
@Endpoint(id = "shardtenancy", defaultAccess = Access.READ_ONLY)
public class ShardTenancyEndpoint {

	private final ShardTenancy tenancy;

	private final TenantRouter router;

	private final WatcherState listener;

	private final ObjectProvider<TenantMover> mover;

	private final MoveSettings moveSettings;

	private final Show showValues;

	private volatile @Nullable TimelineRecorder timeline;

	/**
	 * An endpoint whose moves run with {@link MoveSettings#defaults()}, showing no tenant id ({@link Show#NEVER}).
	 * @param tenancy the tenancy (its router, shards and directory); never {@code null}
	 * @param listener the push listener's state; never {@code null}
	 * @param mover the mover, if the application has one; never {@code null}
	 */
	public ShardTenancyEndpoint(ShardTenancy tenancy, WatcherState listener, ObjectProvider<TenantMover> mover) {
		this(tenancy, listener, mover, MoveSettings.defaults());
	}

	/**
	 * An endpoint showing no tenant id ({@link Show#NEVER}).
	 * @param tenancy the tenancy (its router, shards and directory); never {@code null}
	 * @param listener the push listener's state; never {@code null}
	 * @param mover the mover, if the application has one; never {@code null}
	 * @param moveSettings the settings of the moves it starts (the {@code shard-tenancy.move.*} ones); never
	 * {@code null}
	 */
	public ShardTenancyEndpoint(ShardTenancy tenancy, WatcherState listener, ObjectProvider<TenantMover> mover,
			MoveSettings moveSettings) {
		this(tenancy, listener, mover, moveSettings, Show.NEVER);
	}

	/**
	 * @param tenancy the tenancy (its router, shards and directory); never {@code null}
	 * @param listener the push listener's state; never {@code null}
	 * @param mover the mover, if the application has one; never {@code null}
	 * @param moveSettings the settings of the moves it starts (the {@code shard-tenancy.move.*} ones); never
	 * {@code null}
	 * @param showValues when tenant ids are shown ({@code management.endpoint.shardtenancy.show-values}); over JMX
	 * {@link Show#WHEN_AUTHORIZED} shows them; never {@code null}
	 */
	public ShardTenancyEndpoint(ShardTenancy tenancy, WatcherState listener, ObjectProvider<TenantMover> mover,
			MoveSettings moveSettings, Show showValues) {
		this.tenancy = Objects.requireNonNull(tenancy, "tenancy");
		this.router = tenancy.router();
		this.listener = Objects.requireNonNull(listener, "listener");
		this.mover = Objects.requireNonNull(mover, "mover");
		this.moveSettings = Objects.requireNonNull(moveSettings, "moveSettings");
		this.showValues = Objects.requireNonNull(showValues, "showValues");
	}

	/** @return the instance's view of the directory, its cache and its shards; never {@code null} */
	@ReadOperation
	public ShardTenancyDescriptor overview() {
		Map<String, ShardDescriptor> shards = new LinkedHashMap<>();
		for (String shardId : this.tenancy.topology().shardIds().stream().sorted().toList()) {
			shards.put(shardId, shard(shardId));
		}
		return new ShardTenancyDescriptor(this.router.version(), this.router.isReady(),
				this.router.settings().directoryDownPolicy(), this.router.directoryDownSince().orElse(null),
				this.listener.describe(), CacheDescriptor.of(this.router.stats()), shards);
	}

	private ShardDescriptor shard(String shardId) {
		String fenceDialect = this.tenancy.fenceDialect(shardId).getClass().getSimpleName();
		List<ReplicaDescriptor> replicas = this.tenancy.topology().replicas().stream()
			.filter((replica) -> replica.shardId().equals(shardId))
			.map((replica) -> new ReplicaDescriptor(replica.name(),
					(replica.lag() != null) ? replica.lag().toMillis() : null, replica.problem()))
			.toList();
		if (this.tenancy.topology().dataSource(shardId) instanceof HikariDataSource hikari) {
			HikariPoolMXBean pool = hikari.getHikariPoolMXBean();
			return new ShardDescriptor(fenceDialect, hikari.getPoolName(), hikari.getMaximumPoolSize(),
					(pool != null) ? new ConnectionsDescriptor(pool.getActiveConnections(), pool.getIdleConnections(),
							pool.getTotalConnections(), pool.getThreadsAwaitingConnection()) : null, replicas);
		}
		return new ShardDescriptor(fenceDialect, null, null, null, replicas);
	}

	/**
	 * @param tenant the tenant
	 * @return its cached entry, its directory entry, its owner shard and its unfinished move (each {@code null} when
	 * there is none; the move also without a mover), or {@code null} (HTTP 404) when the tenant is neither in the
	 * directory nor in this instance's cache, or when tenant ids are not shown ({@link Show#NEVER})
	 * @throws InvalidEndpointRequestException (HTTP 400) if the tenant id breaks the tenant id rule
	 * @throws io.github.shardtenancy.DirectoryUnavailableException if the directory cannot be read
	 */
	@ReadOperation
	public @Nullable TenantDescriptor tenant(@Selector String tenant) {
		return tenant(tenant, this.showValues.isShown(true));
	}

	/**
	 * The one-tenant read. Not shown, it answers {@code null} for every valid id, known or not, as Spring Boot's
	 * {@code health} endpoint answers a component path when it does not show components (404 whether the component
	 * exists or not): a sanitized body for known tenants only would still tell which exist.
	 * @param tenant the tenant
	 * @param showValues whether tenant ids are shown to this request
	 * @return as {@link #tenant(String)}; {@code null} if not shown
	 * @throws InvalidEndpointRequestException (HTTP 400) if the tenant id breaks the tenant id rule
	 */
	@Nullable TenantDescriptor tenant(String tenant, boolean showValues) {
		requireValid(tenant);
		if (!showValues) {
			return null;
		}
		Optional<EntryDescriptor> cached = this.router.cached(tenant).map(EntryDescriptor::of);
		Optional<DirectoryEntry> entry = this.tenancy.admin().find(tenant);
		TenantMover tenantMover = this.mover.getIfAvailable();
		Optional<MoveDescriptor> move = (tenantMover != null)
				? tenantMover.findActive(tenant).map(MoveDescriptor::of) : Optional.empty();
		if (cached.isEmpty() && entry.isEmpty() && move.isEmpty()) {
			return null;
		}
		return new TenantDescriptor(tenant, cached.orElse(null), entry.map(EntryDescriptor::of).orElse(null),
				entry.map(DirectoryEntry::shardId).orElse(null), move.orElse(null));
	}

	/**
	 * The pre-flight check of a move of the tenant to the shard ({@link TenantMover#check}), changing nothing
	 * ({@code GET /actuator/shardtenancy/{tenant}/check/{targetShard}}).
	 * @param tenant the tenant
	 * @param check the word {@code check}
	 * @param targetShard the shard it would move to
	 * @return the check; {@code null} (HTTP 404) when tenant ids are not shown ({@link Show#NEVER}): its problems name
	 * other tenants' rows
	 * @throws InvalidEndpointRequestException (HTTP 400) if the tenant id breaks the tenant id rule, the second
	 * selector is not {@code check}, or no {@link TenantMover} bean exists
	 * @throws io.github.shardtenancy.ShardTenancyException as {@link TenantMover#check} throws it
	 */
	@ReadOperation
	public @Nullable MoveCheck check(@Selector String tenant, @Selector String check, @Selector String targetShard) {
		return check(tenant, check, targetShard, this.showValues.isShown(true));
	}

	/**
	 * @param showValues whether tenant ids are shown to this request
	 * @return as {@link #check(String, String, String)}
	 */
	@Nullable MoveCheck check(String tenant, String check, String targetShard, boolean showValues) {
		requireValid(tenant);
		if (!"check".equals(check)) {
			throw new InvalidEndpointRequestException("Unknown read: " + check + " (expected check)",
					"Expected /actuator/shardtenancy/{tenant}/check/{targetShard}");
		}
		if (!showValues) {
			return null;
		}
		return requireMover().check(tenant, targetShard);
	}

	private TenantMover requireMover() {
		TenantMover tenantMover = this.mover.getIfAvailable();
		if (tenantMover == null) {
			throw new InvalidEndpointRequestException("No TenantMover bean: moves cannot be started here",
					"No mover is configured");
		}
		return tenantMover;
	}

	/**
	 * Starts an online move (with this endpoint's move settings) and answers once it is recorded; the mover's executor
	 * runs it. A write operation: available only when the endpoint's access is unrestricted.
	 * @param tenant the tenant to move
	 * @param targetShard the shard to move it to
	 * @return the move's status as recorded (step {@code PLANNED} or later); never {@code null}
	 * @throws InvalidEndpointRequestException (HTTP 400) if the tenant id is invalid, the target is blank, or no
	 * {@link TenantMover} bean exists
	 * @throws io.github.shardtenancy.ShardTenancyException as {@link TenantMover#move} throws it when the move is
	 * refused: {@link io.github.shardtenancy.UnknownTenantException}, {@link io.github.shardtenancy.UnknownShardException},
	 * {@link io.github.shardtenancy.MoveInProgressException}, {@link io.github.shardtenancy.MoveException},
	 * {@link io.github.shardtenancy.DirectoryUnavailableException}
	 */
	@WriteOperation
	public MoveDescriptor move(@Selector String tenant, @Nullable String targetShard) {
		requireValid(tenant);
		if (targetShard == null || targetShard.isBlank()) {
			throw new InvalidEndpointRequestException("targetShard is required", "targetShard is required");
		}
		TenantMover tenantMover = requireMover();
		return MoveDescriptor.of(tenantMover.status(tenantMover.move(tenant, targetShard, this.moveSettings)));
	}

	/**
	 * Creates a tenant ({@code POST /actuator/shardtenancy/{tenant}/create}, optionally with {@code {"shard": "..."}}),
	 * as {@link io.github.shardtenancy.TenantAdmin#create(String)} or
	 * {@link io.github.shardtenancy.TenantAdmin#create(String, String)} does: placed, fenced and seeded. A write
	 * operation: available only when the endpoint's access is unrestricted.
	 * @param tenant the new tenant
	 * @param create the word {@code create}
	 * @param shard the shard to create it on, or {@code null} for the placement policy's choice
	 * @return its ACTIVE entry; never {@code null}
	 * @throws InvalidEndpointRequestException (HTTP 400) if the tenant id breaks the tenant id rule or the second
	 * selector is not {@code create}
	 * @throws io.github.shardtenancy.ShardTenancyException as {@code TenantAdmin.create} throws it:
	 * {@link io.github.shardtenancy.TenantAlreadyExistsException}, {@link io.github.shardtenancy.PlacementException},
	 * {@link io.github.shardtenancy.UnknownShardException}, {@link io.github.shardtenancy.TenantSeedException},
	 * {@link io.github.shardtenancy.DirectoryUnavailableException}
	 */
	@WriteOperation
	public EntryDescriptor create(@Selector String tenant, @Selector String create, @Nullable String shard) {
		requireValid(tenant);
		if (!"create".equals(create)) {
			throw new InvalidEndpointRequestException("Unknown write: " + create + " (expected create)",
					"Expected /actuator/shardtenancy/{tenant}/create");
		}
		DirectoryEntry entry = (shard == null || shard.isBlank()) ? this.tenancy.admin().create(tenant)
				: this.tenancy.admin().create(tenant, shard);
		return EntryDescriptor.of(entry);
	}

	/**
	 * Deletes a tenant ({@code DELETE /actuator/shardtenancy/{tenant}}), as
	 * {@link io.github.shardtenancy.TenantAdmin#delete(String)} does: its entry DELETED, its rows left on its shard
	 * until a purge. A delete operation: available only when the endpoint's access is unrestricted.
	 * @param tenant the tenant
	 * @return its DELETED entry; never {@code null}
	 * @throws InvalidEndpointRequestException (HTTP 400) if the tenant id breaks the tenant id rule
	 * @throws io.github.shardtenancy.ShardTenancyException as {@code TenantAdmin.delete} throws it:
	 * {@link io.github.shardtenancy.UnknownTenantException}, {@link io.github.shardtenancy.DirectoryConflictException}
	 * (not ACTIVE: moving or deleted already), {@link io.github.shardtenancy.DirectoryUnavailableException}
	 */
	@DeleteOperation
	public EntryDescriptor delete(@Selector String tenant) {
		requireValid(tenant);
		return EntryDescriptor.of(this.tenancy.admin().delete(tenant));
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
		return timeline(timeline, seconds, this.showValues.isShown(true));
	}

	/**
	 * @param timeline the word {@code timeline}
	 * @param seconds how many seconds back from now
	 * @param showValues whether tenant ids are shown to this request; if not, each is {@code ******}
	 * @return as {@link #timeline(String, int)}
	 */
	Timeline timeline(String timeline, int seconds, boolean showValues) {
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
			Timeline recorded = recorder.timeline(seconds);
			return showValues ? recorded : TenantIdSanitizer.timeline(recorded);
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

	/**
	 * The instance's view of the directory, its cache and its shards.
	 * @param directoryVersion the directory version this instance holds
	 * @param ready whether the router has loaded the directory
	 * @param directoryDownPolicy what lookups do while the directory is unreachable
	 * @param directoryDownSince since when the directory is unreachable, or {@code null} while it is reachable
	 * @param listener the push listener's state ({@link WatcherState#describe()}), or {@code null} without one
	 * @param cache the router's cache statistics
	 * @param shards every shard by id, sorted
	 */
	public record ShardTenancyDescriptor(long directoryVersion, boolean ready, DirectoryDownPolicy directoryDownPolicy,
			@Nullable Instant directoryDownSince, @Nullable Map<String, Object> listener, CacheDescriptor cache,
			Map<String, ShardDescriptor> shards) implements OperationResponseBody {

	}

	/**
	 * The router's cache statistics ({@link RouterStats}).
	 * @param entries entries in the cache now (approximate)
	 * @param hits lookups answered from the cache
	 * @param misses lookups that read the directory
	 * @param negativeHits lookups answered by a cached "unknown tenant"
	 * @param directoryReads single-entry reads of the directory
	 * @param invalidations entries dropped by invalidation
	 * @param syncs background syncs that found changes and applied them
	 * @param servedStale lookups answered from the cache while the directory was unreachable
	 */
	public record CacheDescriptor(long entries, long hits, long misses, long negativeHits, long directoryReads,
			long invalidations, long syncs, long servedStale) {

		static CacheDescriptor of(RouterStats stats) {
			return new CacheDescriptor(stats.cachedEntries(), stats.hits(), stats.misses(), stats.negativeHits(),
					stats.directoryReads(), stats.invalidations(), stats.syncs(), stats.servedStale());
		}

	}

	/**
	 * One shard.
	 * @param fenceDialect the simple class name of its fence dialect
	 * @param poolName its HikariCP pool's name, or {@code null} if its data source is not HikariCP
	 * @param maximumPoolSize its pool's maximum size, or {@code null} if not HikariCP
	 * @param connections its pool's connections now, or {@code null} if not HikariCP or the pool is not started
	 * @param replicas its read replicas; empty if none
	 */
	public record ShardDescriptor(String fenceDialect, @Nullable String poolName, @Nullable Integer maximumPoolSize,
			@Nullable ConnectionsDescriptor connections, List<ReplicaDescriptor> replicas) {

	}

	/**
	 * One read replica of a shard.
	 * @param name its name, unique within the shard
	 * @param lagMillis how far behind its primary it is at most, in milliseconds, as last measured; {@code null} if
	 * unknown (not sampled, down, promoted, or replica routing off)
	 * @param problem why it cannot serve reads now, or {@code null} if it can (lag aside)
	 */
	public record ReplicaDescriptor(String name, @Nullable Long lagMillis, @Nullable String problem) {

	}

	/**
	 * A HikariCP pool's connections now.
	 * @param active connections in use
	 * @param idle connections idle in the pool
	 * @param total all connections of the pool
	 * @param threadsAwaiting threads waiting for a connection
	 */
	public record ConnectionsDescriptor(int active, int idle, int total, int threadsAwaiting) {

	}

	/**
	 * One tenant.
	 * @param tenant the tenant id
	 * @param cached the entry in this instance's cache, or {@code null} if not cached
	 * @param directory the entry in the directory now, or {@code null} if the directory has none
	 * @param owner the shard that owns the tenant now (the directory entry's), or {@code null}
	 * @param move the tenant's unfinished move, or {@code null} if none (or without a mover)
	 */
	public record TenantDescriptor(String tenant, @Nullable EntryDescriptor cached, @Nullable EntryDescriptor directory,
			@Nullable String owner, @Nullable MoveDescriptor move) implements OperationResponseBody {

	}

	/**
	 * A directory entry ({@link DirectoryEntry}).
	 * @param shard the shard it names
	 * @param state the tenant's state
	 * @param targetShard the shard of its move, or {@code null}
	 * @param epoch the tenant's epoch
	 * @param version the directory version of the entry
	 */
	public record EntryDescriptor(String shard, TenantState state, @Nullable String targetShard, long epoch,
			long version) {

		static EntryDescriptor of(DirectoryEntry entry) {
			return new EntryDescriptor(entry.shardId(), entry.state(), entry.targetShardId(), entry.epoch(),
					entry.version());
		}

	}

	/**
	 * A move as recorded in the move log ({@link MoveStatus}).
	 * @param moveId the move's id
	 * @param tenant the tenant
	 * @param sourceShard the shard the tenant leaves
	 * @param targetShard the shard it goes to
	 * @param step the last step completed
	 * @param stepData progress within the current step, or {@code null}
	 * @param createdAt when the move was started
	 * @param frozenAt when the tenant was frozen, or {@code null} before that
	 * @param flippedAt when the directory was flipped, or {@code null} before that
	 * @param freezeWindowMs the freeze window in milliseconds, or {@code null} before the flip
	 * @param error the last failure, or {@code null}
	 * @param revertable whether the move is in its soak and can be reverted ({@link MoveStatus#isRevertable()})
	 * @param soakUntil the end of the soak, or {@code null} without a soak or before the flip
	 */
	public record MoveDescriptor(String moveId, String tenant, String sourceShard, String targetShard, MoveStep step,
			@Nullable String stepData, Instant createdAt, @Nullable Instant frozenAt, @Nullable Instant flippedAt,
			@Nullable Long freezeWindowMs, @Nullable String error, boolean revertable,
			@Nullable Instant soakUntil) implements OperationResponseBody {

		static MoveDescriptor of(MoveStatus status) {
			return new MoveDescriptor(status.moveId(), status.tenantId(), status.sourceShardId(),
					status.targetShardId(), status.step(), status.stepData(), status.createdAt(), status.frozenAt(),
					status.flippedAt(), status.freezeWindow().map(Duration::toMillis).orElse(null), status.error(),
					status.isRevertable(), status.soakUntil().orElse(null));
		}

	}

}
