package io.github.shardtenancy.internal.lifecycle;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;

import com.zaxxer.hikari.HikariConfig;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.DirectoryEvent;
import io.github.shardtenancy.DirectoryHistoryRecord;
import io.github.shardtenancy.MoveResult;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.Ownership;
import io.github.shardtenancy.PlacementRequest;
import io.github.shardtenancy.ShardRecord;
import io.github.shardtenancy.SlotMoveResult;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.TenantMover;
import io.github.shardtenancy.internal.directory.Directory;
import io.github.shardtenancy.internal.placement.SlotMap;
import io.github.shardtenancy.internal.topology.ShardRegistry;
import io.github.shardtenancy.internal.topology.Topology;

/**
 * The {@link TenantAdmin} of a {@code ShardTenancy}: the tenant operations of a {@link TenantLifecycle}, stop-the-world
 * moves with the {@link TenantMover}, the {@link DirectoryHistory} and the {@link ShardRegistry}. The lifecycle and the
 * mover are obtained on first use (they need the tenant tables, which may be known late). Thread-safe.
 */
public final class TenantAdministration implements TenantAdmin {

	private final Directory directory;

	private final Topology topology;

	private final ShardRegistry registry;

	private final SlotMap slots;

	private final DirectoryHistory history;

	private final Supplier<TenantLifecycle> lifecycle;

	private final Supplier<TenantMover> mover;

	private final MoveSettings stopTheWorld;

	private final String actor;

	/**
	 * @param directory the directory
	 * @param topology this instance's shards
	 * @param registry the shard registry
	 * @param slots the slot map
	 * @param lifecycle the lifecycle, asked on each tenant operation (it may be created on first use)
	 * @param mover the mover of {@link #move(String, String)}, asked on each move
	 * @param stopTheWorld the settings of {@link #move(String, String)}
	 * @param actor who acts, recorded in the history
	 */
	public TenantAdministration(Directory directory, Topology topology, ShardRegistry registry, SlotMap slots,
			Supplier<TenantLifecycle> lifecycle, Supplier<TenantMover> mover, MoveSettings stopTheWorld,
			String actor) {
		this.directory = Objects.requireNonNull(directory, "directory");
		this.topology = Objects.requireNonNull(topology, "topology");
		this.registry = Objects.requireNonNull(registry, "registry");
		this.slots = Objects.requireNonNull(slots, "slots");
		this.history = new DirectoryHistory(directory);
		this.lifecycle = Objects.requireNonNull(lifecycle, "lifecycle");
		this.mover = Objects.requireNonNull(mover, "mover");
		this.stopTheWorld = Objects.requireNonNull(stopTheWorld, "stopTheWorld");
		this.actor = Objects.requireNonNull(actor, "actor");
	}

	@Override
	public DirectoryEntry create(String tenantId) {
		return this.lifecycle.get().create(tenantId);
	}

	@Override
	public DirectoryEntry create(String tenantId, String shardId) {
		this.topology.shard(shardId);
		return this.lifecycle.get().create(tenantId, PlacementRequest.onShard(shardId));
	}

	@Override
	public DirectoryEntry create(String tenantId, PlacementRequest request) {
		return this.lifecycle.get().create(tenantId, Objects.requireNonNull(request, "request"));
	}

	@Override
	public boolean seed(String tenantId) {
		return this.lifecycle.get().seed(tenantId);
	}

	@Override
	public DirectoryEntry delete(String tenantId) {
		return this.lifecycle.get().delete(tenantId);
	}

	@Override
	public long purge(String tenantId) {
		return this.lifecycle.get().purge(tenantId);
	}

	@Override
	public boolean pin(String tenantId) {
		return this.lifecycle.get().pin(tenantId);
	}

	@Override
	public boolean unpin(String tenantId) {
		return this.lifecycle.get().unpin(tenantId);
	}

	@Override
	public boolean isPinned(String tenantId) {
		return this.lifecycle.get().isPinned(tenantId);
	}

	@Override
	public MoveResult move(String tenantId, String targetShardId) {
		return this.mover.get().moveAndWait(tenantId, targetShardId, this.stopTheWorld);
	}

	@Override
	public boolean override(String tenantId, String shardId) {
		return this.lifecycle.get().override(tenantId, shardId);
	}

	@Override
	public boolean removeOverride(String tenantId) {
		return this.lifecycle.get().removeOverride(tenantId);
	}

	@Override
	public void initializeSlots(int slotCount, List<String> shardIds) {
		this.slots.initialize(slotCount, List.copyOf(shardIds), this.actor);
	}

	@Override
	public SlotMoveResult moveSlot(int slot, String targetShardId) {
		return this.lifecycle.get().moveSlot(slot, targetShardId);
	}

	@Override
	public List<String> drain(String shardId) {
		return this.lifecycle.get().drain(shardId);
	}

	@Override
	public Optional<DirectoryEntry> find(String tenantId) {
		return this.directory.find(tenantId);
	}

	@Override
	public long snapshot(Consumer<DirectoryEntry> consumer) {
		return this.directory.snapshot(Objects.requireNonNull(consumer, "consumer"));
	}

	@Override
	public List<DirectoryHistoryRecord> history(String tenantId) {
		return this.directory.history(tenantId);
	}

	@Override
	public Optional<Ownership> ownerAt(String tenantId, Instant at) {
		return this.history.ownerAt(tenantId, at);
	}

	@Override
	public List<DirectoryEvent> events(long sinceVersion) {
		return this.history.events(sinceVersion);
	}

	@Override
	public ShardRecord registerShard(String shardId, String region, String jdbcUrl, String username) {
		return this.registry.register(shardId, region, jdbcUrl, username);
	}

	@Override
	public ShardRecord registerShard(String shardId, String region, HikariConfig config) {
		return this.registry.register(shardId, region, Objects.requireNonNull(config, "config"));
	}

	@Override
	public ShardRecord failoverShard(String shardId, HikariConfig newPrimary) {
		return this.registry.failover(shardId, Objects.requireNonNull(newPrimary, "newPrimary"));
	}

	@Override
	public ShardRecord retireShard(String shardId) {
		return this.registry.retire(shardId);
	}

	@Override
	public List<ShardRecord> shards() {
		return this.registry.list();
	}

	@Override
	public List<ShardRecord> syncShards() {
		List<ShardRecord> records = this.registry.sync();
		this.slots.refresh();
		return records;
	}

	@Override
	public List<io.github.shardtenancy.ReplicaRecord> replicas() {
		return this.registry.replicas();
	}

}
