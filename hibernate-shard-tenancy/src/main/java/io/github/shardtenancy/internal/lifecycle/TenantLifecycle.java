package io.github.shardtenancy.internal.lifecycle;

import io.github.shardtenancy.SlotMoveResult;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import io.github.shardtenancy.DirectoryConflictException;
import io.github.shardtenancy.DirectoryUnavailableException;
import io.github.shardtenancy.PlacementException;
import io.github.shardtenancy.ShardStateException;
import io.github.shardtenancy.ShardTenancyException;
import io.github.shardtenancy.TenantAlreadyExistsException;
import io.github.shardtenancy.TenantIds;
import io.github.shardtenancy.TenantMover;
import io.github.shardtenancy.UnknownTenantException;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.PlacementRequest;
import io.github.shardtenancy.ShardRecord;
import io.github.shardtenancy.ShardState;
import io.github.shardtenancy.TenantState;
import io.github.shardtenancy.TenantTable;
import io.github.shardtenancy.internal.directory.Directory;
import io.github.shardtenancy.internal.directory.DirectoryEvents;
import io.github.shardtenancy.internal.fence.FenceState;
import io.github.shardtenancy.internal.fence.ShardFence;
import io.github.shardtenancy.internal.move.RowDeletion;
import io.github.shardtenancy.internal.move.TablePlan;
import io.github.shardtenancy.internal.placement.ShardPlacement;
import io.github.shardtenancy.internal.placement.SlotMap;
import io.github.shardtenancy.internal.routing.Router;
import io.github.shardtenancy.internal.topology.ShardRegistry;
import io.github.shardtenancy.internal.topology.Topology;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.spi.PlacementContext;
import io.github.shardtenancy.ShardLoad;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tenant lifecycle: create (with placement), delete and purge, pin, overrides, slot moves and draining a shard.
 * Shards themselves come and go through the {@link ShardRegistry}; history is read with {@link DirectoryHistory}.
 *
 * <p>Every directory change is one directory transaction that bumps the directory version and is recorded in the
 * history (entry changes in {@code shard_directory_history}, the others in {@code shard_directory_event}), with this
 * instance's actor. This instance's router sees each change at once; other instances at their next sync or
 * notification.
 *
 * <p>Thread-safe.
 */
public class TenantLifecycle {

	private static final Logger log = LoggerFactory.getLogger(TenantLifecycle.class);

	private final Directory directory;

	private final Router router;

	private final Topology topology;

	private final ShardRegistry registry;

	private final ShardPlacement placement;

	private final SlotMap slots;

	private final TenantMover mover;

	private final MoveSettings moveSettings;

	private final List<TenantTable> tables;

	private final String actor;

	private volatile TenantSeeding seeding;

	/**
	 * @param directory the directory
	 * @param router this instance's router, updated at once after each change
	 * @param topology this instance's shards
	 * @param registry the shard registry (placement's candidates are its ACTIVE shards)
	 * @param placement how new tenants are placed
	 * @param slots the slot map (fixed-slot mode may stay uninitialised)
	 * @param mover moves tenants (slot moves, overrides, drains), each on the calling thread until its flip
	 * @param moveSettings how the mover moves them
	 * @param tables the tenant tables, for purges
	 * @param actor who acts, recorded in the history
	 */
	public TenantLifecycle(Directory directory, Router router, Topology topology, ShardRegistry registry,
			ShardPlacement placement, SlotMap slots, TenantMover mover, MoveSettings moveSettings,
			List<TenantTable> tables, String actor) {
		this.directory = Objects.requireNonNull(directory, "directory");
		this.router = Objects.requireNonNull(router, "router");
		this.topology = Objects.requireNonNull(topology, "topology");
		this.registry = Objects.requireNonNull(registry, "registry");
		this.placement = Objects.requireNonNull(placement, "placement");
		this.slots = Objects.requireNonNull(slots, "slots");
		this.mover = Objects.requireNonNull(mover, "mover");
		this.moveSettings = Objects.requireNonNull(moveSettings, "moveSettings");
		this.tables = List.copyOf(tables);
		this.actor = Objects.requireNonNull(actor, "actor");
	}

	/**
	 * Seeds new tenants with the given seeding from now on; without it, none are seeded.
	 * @param seeding the seeding
	 * @return this lifecycle
	 */
	public TenantLifecycle withSeeding(TenantSeeding seeding) {
		this.seeding = Objects.requireNonNull(seeding, "seeding");
		return this;
	}

	/**
	 * Creates a tenant where the placement policy puts it; see {@link #create(String, PlacementRequest)}.
	 * @param tenantId the new tenant
	 * @return its entry
	 */
	public DirectoryEntry create(String tenantId) {
		return create(tenantId, PlacementRequest.any());
	}

	/**
	 * Creates a tenant: its owner is chosen ({@link ShardPlacement}: override, then an explicit shard in the request,
	 * then the policy) inside the directory transaction that writes its ACTIVE entry, then the owner's fence is set to
	 * own it, and this instance's router caches the entry (dropping any negative cache entry), so the tenant is
	 * routable here at once. Two instances creating the same tenant at once leave exactly one entry; the other gets
	 * {@link TenantAlreadyExistsException}.
	 * @param tenantId the new tenant
	 * @param request an explicit shard or a region, or {@link PlacementRequest#any()}
	 * @return the new entry
	 * @throws io.github.shardtenancy.InvalidTenantIdException if the id breaks the tenant id rule
	 * @throws TenantAlreadyExistsException if the tenant already has an entry (also a DELETED one)
	 * @throws PlacementException if no ACTIVE registered shard fits (nothing is written)
	 * @throws DirectoryUnavailableException if the directory cannot be written
	 * @throws ShardTenancyException if the owner's fence cannot be written; the entry then exists and the shard
	 * refuses the tenant's work until its fence is set (creating again reports the existing entry)
	 * @throws io.github.shardtenancy.TenantSeedException if the seed (see {@link #withSeeding}) fails; the entry then
	 * exists, ACTIVE, and {@link #seed(String)} retries the seed
	 */
	public DirectoryEntry create(String tenantId, PlacementRequest request) {
		TenantIds.requireValid(tenantId);
		DirectoryEntry entry = this.directory.create(tenantId, this.actor, this.placement.choice(request));
		Topology.Shard shard = this.topology.shard(entry.shardId());
		ShardFence.set(shard, tenantId, FenceState.OWNED, entry.version());
		log.info("Created tenant '{}' on shard '{}' (directory version {})", tenantId, entry.shardId(),
				entry.version());
		DirectoryEntry applied = this.router.apply(entry);
		TenantSeeding seeding = this.seeding;
		if (seeding != null) {
			seeding.seed(entry);
		}
		return applied;
	}

	/**
	 * Seeds an ACTIVE tenant whose seed is not recorded yet (see {@link TenantSeeding}): retries a seed that failed
	 * at creation. A tenant seeded already, or a tenancy with no seeders, is left alone.
	 * @param tenantId the tenant
	 * @return whether it was seeded now
	 * @throws UnknownTenantException if it has no entry
	 * @throws DirectoryConflictException if it is not ACTIVE
	 * @throws io.github.shardtenancy.TenantSeedException if the seed fails
	 */
	public boolean seed(String tenantId) {
		DirectoryEntry entry = requireActive(requireEntry(tenantId), "seeded");
		TenantSeeding seeding = this.seeding;
		return seeding != null && seeding.seed(entry);
	}

	private static DirectoryEntry requireActive(DirectoryEntry entry, String done) {
		if (entry.state() != TenantState.ACTIVE) {
			throw new DirectoryConflictException("Tenant '" + entry.tenantId() + "' is " + entry.state() + " on shard '"
					+ entry.shardId() + "' (directory version " + entry.version() + "); only an ACTIVE tenant can be "
					+ done, entry.tenantId(), entry.shardId(), entry.version());
		}
		return entry;
	}

	/**
	 * Deletes a tenant: its entry becomes DELETED (routers then refuse it with
	 * {@link io.github.shardtenancy.TenantDeletedException}) and its owner's fence refuses it from this version on, so
	 * an instance that has not heard of the deletion is rejected, refreshes and gets the typed error too. Its rows
	 * stay on its shard until {@link #purge(String)}.
	 * @param tenantId the tenant
	 * @return the DELETED entry
	 * @throws UnknownTenantException if it has no entry
	 * @throws DirectoryConflictException if it is not ACTIVE (being moved, or already deleted), or changed meanwhile
	 */
	public DirectoryEntry delete(String tenantId) {
		DirectoryEntry entry = requireActive(requireEntry(tenantId), "deleted");
		DirectoryEntry deleted = this.directory.update(tenantId, entry.epoch(), entry.shardId(), TenantState.DELETED,
				null, this.actor);
		Topology.Shard shard = this.topology.shard(entry.shardId());
		ShardFence.set(shard, tenantId, FenceState.MOVED, deleted.version());
		log.info("Deleted tenant '{}' on shard '{}' (directory version {})", tenantId, shard.id(), deleted.version());
		return this.router.apply(deleted);
	}

	/**
	 * Purges a DELETED tenant: removes its rows from every tenant table of its shard (children first, one
	 * transaction), and records the purge in the history. The entry stays DELETED.
	 * @param tenantId the tenant
	 * @return rows deleted
	 * @throws UnknownTenantException if it has no entry
	 * @throws DirectoryConflictException if it is not DELETED
	 * @throws ShardTenancyException if its shard cannot be written
	 */
	public long purge(String tenantId) {
		DirectoryEntry entry = requireEntry(tenantId);
		if (entry.state() != TenantState.DELETED) {
			throw new DirectoryConflictException("Tenant '" + tenantId + "' is " + entry.state() + " on shard '"
					+ entry.shardId() + "' (directory version " + entry.version() + "); only a DELETED tenant can be "
					+ "purged", tenantId, entry.shardId(), entry.version());
		}
		Topology.Shard shard = this.topology.shard(entry.shardId());
		long rows;
		try {
			List<TablePlan> plans;
			try (Connection c = shard.dataSource().getConnection()) {
				plans = TablePlan.plan(c, shard.id(), tenantId, this.tables);
			}
			rows = RowDeletion.delete(shard, tenantId, plans);
		}
		catch (SQLException ex) {
			throw new ShardTenancyException("Cannot purge tenant '" + tenantId + "' on shard '" + shard.id()
					+ "' (directory version " + entry.version() + "): " + ex.getMessage(), tenantId, shard.id(),
					entry.version(), ex);
		}
		this.directory.transaction((c, version) -> {
			DirectoryEvents.record(c, version, "TENANT_PURGED", tenantId, shard.id(), rows + " rows deleted",
					this.actor);
			return null;
		});
		log.info("Purged tenant '{}' on shard '{}': {} rows", tenantId, shard.id(), rows);
		return rows;
	}

	/**
	 * Pins a tenant: slot moves and drains leave it where it is. Idempotent.
	 * @param tenantId the tenant
	 * @return whether it was not pinned before
	 * @throws DirectoryUnavailableException if the directory cannot be written
	 */
	public boolean pin(String tenantId) {
		TenantIds.requireValid(tenantId);
		return this.directory.transaction((c, version) -> {
			if (pinned(c, tenantId)) {
				return false;
			}
			try (PreparedStatement ps = c.prepareStatement("INSERT INTO shard_tenant_pin (tenant_id, version, "
					+ "pinned_at, pinned_by) VALUES (?, ?, CURRENT_TIMESTAMP, ?)")) {
				ps.setString(1, tenantId);
				ps.setLong(2, version);
				ps.setString(3, this.actor);
				ps.executeUpdate();
			}
			DirectoryEvents.record(c, version, "TENANT_PINNED", tenantId, "unpinned", "pinned", this.actor);
			return true;
		});
	}

	/**
	 * Unpins a tenant. Idempotent.
	 * @param tenantId the tenant
	 * @return whether it was pinned
	 * @throws DirectoryUnavailableException if the directory cannot be written
	 */
	public boolean unpin(String tenantId) {
		TenantIds.requireValid(tenantId);
		return this.directory.transaction((c, version) -> {
			int removed;
			try (PreparedStatement ps = c.prepareStatement("DELETE FROM shard_tenant_pin WHERE tenant_id = ?")) {
				ps.setString(1, tenantId);
				removed = ps.executeUpdate();
			}
			if (removed > 0) {
				DirectoryEvents.record(c, version, "TENANT_UNPINNED", tenantId, "pinned", "unpinned", this.actor);
			}
			return removed > 0;
		});
	}

	/**
	 * @param tenantId a tenant
	 * @return whether it is pinned
	 * @throws DirectoryUnavailableException if the directory cannot be read
	 */
	public boolean isPinned(String tenantId) {
		try (Connection c = this.directory.dataSource().getConnection()) {
			return pinned(c, tenantId);
		}
		catch (SQLException ex) {
			throw new DirectoryUnavailableException(tenantId, -1, ex);
		}
	}

	/**
	 * Moves a tenant to a shard, provided the shard is ACTIVE in the registry.
	 * @param tenantId the tenant
	 * @param targetShardId the new owner
	 * @throws ShardStateException if the target is not an ACTIVE registered shard
	 * @throws RuntimeException whatever the mover throws
	 */
	public void move(String tenantId, String targetShardId) {
		requireActive(targetShardId);
		moveAndWait(tenantId, targetShardId);
	}

	/** Moves a tenant with the lifecycle's settings and returns once the directory names the target. */
	private void moveAndWait(String tenantId, String targetShardId) {
		this.mover.moveAndWait(tenantId, targetShardId, this.moveSettings);
	}

	/**
	 * Sets a tenant's override (checked before its slot) and, if the tenant exists on another shard, moves it there.
	 * An override is an explicit decision: it applies to pinned tenants too.
	 * @param tenantId the tenant
	 * @param shardId an ACTIVE registered shard
	 * @return whether the tenant was moved
	 * @throws PlacementException if the shard is not ACTIVE
	 * @throws RuntimeException whatever the mover throws (the override stays recorded; setting it again retries)
	 */
	public boolean override(String tenantId, String shardId) {
		this.slots.putOverride(tenantId, shardId, this.actor);
		DirectoryEntry entry = this.directory.find(tenantId).orElse(null);
		if (entry == null || entry.state() == TenantState.DELETED || entry.shardId().equals(shardId)) {
			return false;
		}
		moveAndWait(tenantId, shardId);
		return true;
	}

	/**
	 * Removes a tenant's override; the tenant stays where it is.
	 * @param tenantId the tenant
	 * @return whether it had one
	 */
	public boolean removeOverride(String tenantId) {
		return this.slots.removeOverride(tenantId, this.actor);
	}

	/**
	 * Moves a slot: assigns it to the target in the slot table (tenants created from then on go there), then moves
	 * each of its tenants that lives elsewhere with the mover, except pinned tenants and tenants with an override. A
	 * failed tenant move stops the slot move and propagates; calling it again moves the rest.
	 * @param slot the slot
	 * @param targetShardId an ACTIVE registered shard
	 * @return what was moved and what was left
	 * @throws PlacementException if slot mode is not initialised, the slot does not exist or the target is not ACTIVE
	 * @throws RuntimeException whatever the mover throws
	 */
	public SlotMoveResult moveSlot(int slot, String targetShardId) {
		String from = this.slots.assignSlot(slot, targetShardId, this.actor);
		int count = this.slots.slotCount();
		Set<String> pinned = pinnedTenants();
		Map<String, String> overrides = overrides();
		List<DirectoryEntry> members = new ArrayList<>();
		this.directory.snapshot(entry -> {
			if (SlotMap.slotOf(entry.tenantId(), count) == slot) {
				members.add(entry);
			}
		});
		members.sort(java.util.Comparator.comparing(DirectoryEntry::tenantId));
		List<String> moved = new ArrayList<>();
		List<String> leftPinned = new ArrayList<>();
		List<String> leftOverridden = new ArrayList<>();
		List<String> skipped = new ArrayList<>();
		for (DirectoryEntry entry : members) {
			String tenant = entry.tenantId();
			if (entry.shardId().equals(targetShardId) && entry.state() == TenantState.ACTIVE) {
				continue;
			}
			if (overrides.containsKey(tenant)) {
				leftOverridden.add(tenant);
			}
			else if (pinned.contains(tenant)) {
				leftPinned.add(tenant);
			}
			else if (entry.state() != TenantState.ACTIVE) {
				skipped.add(tenant);
			}
			else {
				moveAndWait(tenant, targetShardId);
				moved.add(tenant);
			}
		}
		log.info("Slot {} moved from '{}' to '{}': {} tenants moved, {} pinned, {} overridden, {} skipped", slot, from,
				targetShardId, moved.size(), leftPinned.size(), leftOverridden.size(), skipped.size());
		return new SlotMoveResult(slot, from, targetShardId, moved, leftPinned, leftOverridden, skipped);
	}

	/**
	 * Automatic placement of existing tenants: moves every ACTIVE, unpinned tenant off a shard (before retiring it),
	 * each to the shard the placement policy chooses among the other ACTIVE shards (in the drained shard's region if
	 * it has one). Pinned tenants are never chosen: they stay, and keep the shard from being retired.
	 * @param shardId the shard to empty
	 * @return the tenants moved, in order
	 * @throws PlacementException if no other shard fits
	 * @throws RuntimeException whatever the mover throws (the tenants moved so far stay moved)
	 */
	public List<String> drain(String shardId) {
		ShardRecord source = this.registry.find(shardId)
			.orElseThrow(() -> new ShardStateException("Shard '" + shardId + "' is not registered", shardId, -1));
		Set<String> pinned = pinnedTenants();
		List<String> tenants = new ArrayList<>();
		this.directory.snapshot(entry -> {
			if (entry.shardId().equals(shardId) && entry.state() == TenantState.ACTIVE
					&& !pinned.contains(entry.tenantId())) {
				tenants.add(entry.tenantId());
			}
		});
		tenants.sort(null);
		PlacementRequest request = source.region() != null ? PlacementRequest.inRegion(source.region())
				: PlacementRequest.any();
		List<String> moved = new ArrayList<>();
		for (String tenant : tenants) {
			List<ShardLoad> candidates = loads().stream().filter(l -> !l.shardId().equals(shardId)).toList();
			PlacementContext context = new PlacementContext(tenant, request, candidates, -1, null,
					this.directory.currentVersion());
			if (candidates.isEmpty()) {
				throw context.fail("no other ACTIVE shard to drain shard '" + shardId + "' to");
			}
			String target = this.placement.policy().choose(context);
			if (context.candidate(target).isEmpty()) {
				throw context.fail("the placement policy chose shard '" + target + "', which is not a candidate");
			}
			moveAndWait(tenant, target);
			moved.add(tenant);
		}
		return moved;
	}

	/** @return the slot map this lifecycle writes */
	public SlotMap slots() {
		return this.slots;
	}

	/** @return the shard registry */
	public ShardRegistry registry() {
		return this.registry;
	}

	private List<ShardLoad> loads() {
		try (Connection c = this.directory.dataSource().getConnection()) {
			Map<String, Long> counts = new java.util.HashMap<>();
			try (PreparedStatement ps = c.prepareStatement("SELECT shard_id, COUNT(*) FROM shard_directory_entry "
					+ "WHERE state <> 'DELETED' GROUP BY shard_id"); ResultSet rs = ps.executeQuery()) {
				while (rs.next()) {
					counts.put(rs.getString(1), rs.getLong(2));
				}
			}
			return ShardRegistry.active(c).stream()
				.map(r -> new ShardLoad(r.shardId(), r.region(), counts.getOrDefault(r.shardId(), 0L)))
				.toList();
		}
		catch (SQLException ex) {
			throw new DirectoryUnavailableException(null, -1, ex);
		}
	}

	private void requireActive(String shardId) {
		ShardRecord record = this.registry.find(shardId).orElse(null);
		if (record == null || record.state() != ShardState.ACTIVE) {
			throw new ShardStateException("Shard '" + shardId + "' is " + (record == null ? "not registered"
					: record.state()) + "; only an ACTIVE registered shard can take tenants", shardId,
					record != null ? record.version() : -1);
		}
	}

	private DirectoryEntry requireEntry(String tenantId) {
		return this.directory.find(tenantId)
			.orElseThrow(() -> new UnknownTenantException(tenantId, this.directory.currentVersion()));
	}

	private Set<String> pinnedTenants() {
		return strings("SELECT tenant_id FROM shard_tenant_pin");
	}

	private Map<String, String> overrides() {
		try (Connection c = this.directory.dataSource().getConnection();
				PreparedStatement ps = c.prepareStatement("SELECT tenant_id, shard_id FROM shard_tenant_override");
				ResultSet rs = ps.executeQuery()) {
			Map<String, String> overrides = new java.util.HashMap<>();
			while (rs.next()) {
				overrides.put(rs.getString(1), rs.getString(2));
			}
			return overrides;
		}
		catch (SQLException ex) {
			throw new DirectoryUnavailableException(null, -1, ex);
		}
	}

	private Set<String> strings(String sql) {
		try (Connection c = this.directory.dataSource().getConnection();
				PreparedStatement ps = c.prepareStatement(sql);
				ResultSet rs = ps.executeQuery()) {
			Set<String> values = new HashSet<>();
			while (rs.next()) {
				values.add(rs.getString(1));
			}
			return values;
		}
		catch (SQLException ex) {
			throw new DirectoryUnavailableException(null, -1, ex);
		}
	}

	private static boolean pinned(Connection c, String tenantId) throws SQLException {
		try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM shard_tenant_pin WHERE tenant_id = ?")) {
			ps.setString(1, tenantId);
			try (ResultSet rs = ps.executeQuery()) {
				return rs.next();
			}
		}
	}

}
