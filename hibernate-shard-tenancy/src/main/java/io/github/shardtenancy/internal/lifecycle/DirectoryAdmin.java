package io.github.shardtenancy.internal.lifecycle;

import io.github.shardtenancy.MoveResult;
import io.github.shardtenancy.TenantMover;
import java.util.Objects;

import io.github.shardtenancy.DirectoryConflictException;
import io.github.shardtenancy.DirectoryUnavailableException;
import io.github.shardtenancy.ShardTenancyException;
import io.github.shardtenancy.TenantIds;
import io.github.shardtenancy.TenantMover;
import io.github.shardtenancy.UnknownShardException;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.PlacementRequest;
import io.github.shardtenancy.internal.directory.Directory;
import io.github.shardtenancy.internal.fence.FenceState;
import io.github.shardtenancy.internal.fence.ShardFence;
import io.github.shardtenancy.internal.placement.ShardPlacement;
import io.github.shardtenancy.internal.routing.Router;
import io.github.shardtenancy.internal.topology.Topology;
import io.github.shardtenancy.MoveSettings;

/**
 * Operations on tenants: create one on a shard, move one to another shard. Thread-safe.
 */
public class DirectoryAdmin {

	private final Directory directory;

	private final Router router;

	private final Topology topology;

	private final TenantMover mover;

	private final MoveSettings moveSettings;

	private final String actor;

	private final ShardPlacement placement;

	/**
	 * @param directory the directory
	 * @param router the local router; it sees this instance's changes at once
	 * @param topology the shards
	 * @param mover the mover used by {@link #move(String, String)}
	 * @param moveSettings how {@link #move(String, String)} moves (for example {@link MoveSettings#stopTheWorld()})
	 * @param actor who acts, recorded in the directory history
	 */
	public DirectoryAdmin(Directory directory, Router router, Topology topology, TenantMover mover,
			MoveSettings moveSettings, String actor) {
		this(directory, router, topology, mover, moveSettings, actor, null);
	}

	/**
	 * An admin whose {@link #create(String, String)} goes through the shard registry and placement, as
	 * {@link io.github.shardtenancy.internal.lifecycle.TenantLifecycle#create(String, io.github.shardtenancy.PlacementRequest)}
	 * does: use it whenever shards are recorded in the registry.
	 * @param directory the directory
	 * @param router the local router; it sees this instance's changes at once
	 * @param topology the shards
	 * @param mover the mover used by {@link #move(String, String)}
	 * @param moveSettings how {@link #move(String, String)} moves (for example {@link MoveSettings#stopTheWorld()})
	 * @param actor who acts, recorded in the directory history
	 * @param placement the placement new tenants go through, or {@code null} to write the entry on the named shard
	 * without consulting the registry
	 */
	public DirectoryAdmin(Directory directory, Router router, Topology topology, TenantMover mover,
			MoveSettings moveSettings, String actor, ShardPlacement placement) {
		this.directory = Objects.requireNonNull(directory, "directory");
		this.router = Objects.requireNonNull(router, "router");
		this.topology = Objects.requireNonNull(topology, "topology");
		this.mover = Objects.requireNonNull(mover, "mover");
		this.moveSettings = Objects.requireNonNull(moveSettings, "moveSettings");
		this.actor = Objects.requireNonNull(actor, "actor");
		this.placement = placement;
	}

	/**
	 * Creates a tenant, ACTIVE on a shard, and makes the shard's fence own it. The tenant is routable on this instance
	 * at once (its negative cache entry is dropped) and on others after their next sync.
	 *
	 * <p>With a {@link ShardPlacement} (the Spring Boot starter always gives one), the owner is chosen in the
	 * directory transaction that writes the entry, as in {@code TenantLifecycle.create(tenantId,
	 * PlacementRequest.onShard(shardId))}: the shard must be an ACTIVE registered shard, and an override recorded for
	 * the tenant wins over the shard asked for (the returned entry names the owner). Without one, the entry is written
	 * on the named shard without consulting the registry (for setups without a shard registry); prefer
	 * {@code TenantLifecycle} for new code.
	 * @param tenantId the new tenant
	 * @param shardId its shard
	 * @return the new entry
	 * @throws io.github.shardtenancy.InvalidTenantIdException if the id breaks the tenant id rule
	 * @throws io.github.shardtenancy.PlacementException with a placement, if the shard (or the tenant's override) is
	 * not an ACTIVE registered shard: nothing is written
	 * @throws UnknownShardException if the shard is not in the topology
	 * @throws DirectoryConflictException if the tenant already exists
	 * @throws DirectoryUnavailableException if the directory cannot be written
	 * @throws ShardTenancyException if the shard's fence cannot be written (the entry then exists, and routed work is
	 * rejected by the shard until the fence is set, for example by creating again after a fix)
	 */
	public DirectoryEntry create(String tenantId, String shardId) {
		this.topology.shard(shardId);
		DirectoryEntry entry;
		if (this.placement != null) {
			TenantIds.requireValid(tenantId);
			entry = this.directory.create(tenantId, this.actor,
					this.placement.choice(PlacementRequest.onShard(shardId)));
		}
		else {
			entry = this.directory.create(tenantId, shardId, this.actor);
		}
		Topology.Shard shard = this.topology.shard(entry.shardId());
		ShardFence.set(shard, tenantId, FenceState.OWNED, entry.version());
		return this.router.apply(entry);
	}

	/**
	 * Moves a tenant with this admin's move settings, on the calling thread; see
	 * {@link TenantMover#moveAndWait(String, String, MoveSettings)}, which documents the exceptions.
	 * @param tenantId the tenant
	 * @param targetShardId the new owner
	 * @return what the move did (it is DONE, or FLIPPED while the source waits for the clean delay)
	 */
	public MoveResult move(String tenantId, String targetShardId) {
		return this.mover.moveAndWait(tenantId, targetShardId, this.moveSettings);
	}

	/** @return the directory this admin writes */
	public Directory directory() {
		return this.directory;
	}

}
