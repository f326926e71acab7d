package io.github.shardtenancy;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

import com.zaxxer.hikari.HikariConfig;

/**
 * Administration of tenants and shards: the tenant lifecycle (create, delete, purge, pin, overrides, moves, slot
 * moves, drains), its history, and the shard registry (register, retire, list, sync). Obtained from
 * {@link ShardTenancy#admin()}.
 *
 * <p>Every directory change is one directory transaction that bumps the directory version and is recorded in the
 * directory history with the tenancy's actor ({@link ShardTenancyBuilder#actor(String)}). This instance's router sees
 * each change at once; other instances at their next sync or notification.
 *
 * <p>Moves started here run on the calling thread and return once the directory names the target. {@link #move} is a
 * stop-the-world move (the tenant is frozen for the copy: {@link ShardTenancyBuilder#moveSettings} with capture off
 * and {@link ShardTenancyBuilder#stopTheWorldCleanDelay}); slot moves, overrides and drains move online with
 * {@link ShardTenancyBuilder#moveSettings}. Every method throws {@link DirectoryUnavailableException} when the
 * directory cannot be read or written, and {@link NullPointerException} for a {@code null} argument not documented
 * as allowed.
 *
 * <p>Thread-safe.
 */
public interface TenantAdmin {

	/**
	 * Creates a tenant where the placement policy puts it; see {@link #create(String, PlacementRequest)}.
	 * @param tenantId the new tenant
	 * @return its ACTIVE entry; never {@code null}
	 * @throws InvalidTenantIdException if the id breaks the tenant id rule
	 * @throws TenantAlreadyExistsException if the tenant already has an entry (also a DELETED one)
	 * @throws PlacementException if no ACTIVE registered shard fits (nothing is written)
	 * @throws ShardTenancyException if the owner's fence cannot be written (the entry then exists)
	 */
	DirectoryEntry create(String tenantId);

	/**
	 * Creates a tenant on a shard: {@code create(tenantId, PlacementRequest.onShard(shardId))}. An override recorded
	 * for the tenant wins over the shard asked for (the returned entry names the owner).
	 * @param tenantId the new tenant
	 * @param shardId an ACTIVE registered shard
	 * @return its ACTIVE entry; never {@code null}
	 * @throws InvalidTenantIdException if the id breaks the tenant id rule
	 * @throws UnknownShardException if the shard is not in this instance's topology
	 * @throws TenantAlreadyExistsException if the tenant already has an entry (also a DELETED one)
	 * @throws PlacementException if the shard (or the tenant's override) is not an ACTIVE registered shard
	 * @throws ShardTenancyException if the owner's fence cannot be written (the entry then exists)
	 */
	DirectoryEntry create(String tenantId, String shardId);

	/**
	 * Creates a tenant: its owner is chosen (override, then an explicit shard in the request, then the placement
	 * policy) inside the directory transaction that writes its ACTIVE entry, then the owner's fence is set to own it,
	 * and this instance's router caches the entry, so the tenant is routable here at once. Then, if the tenancy has
	 * {@link io.github.shardtenancy.spi.TenantSeeder}s, they load the tenant's initial data on its shard in one
	 * transaction on the calling thread (see {@link #seed(String)}); a move never seeds. Two instances creating the
	 * same tenant at once leave exactly one entry; the other gets {@link TenantAlreadyExistsException}.
	 * @param tenantId the new tenant
	 * @param request an explicit shard or a region, or {@link PlacementRequest#any()}
	 * @return its ACTIVE entry; never {@code null}
	 * @throws InvalidTenantIdException if the id breaks the tenant id rule
	 * @throws TenantAlreadyExistsException if the tenant already has an entry (also a DELETED one)
	 * @throws PlacementException if no ACTIVE registered shard fits (nothing is written)
	 * @throws ShardTenancyException if the owner's fence cannot be written; the entry then exists and the shard
	 * refuses the tenant's work until its fence is set
	 * @throws TenantSeedException if a {@link io.github.shardtenancy.spi.TenantSeeder} of the tenancy fails, or the
	 * seed cannot start (a {@link TenantSwitchedException} cause: another tenant's shard connection is held on this
	 * thread): the seed is rolled back, the entry exists (ACTIVE, routable) and {@link #seed(String)} retries it
	 */
	DirectoryEntry create(String tenantId, PlacementRequest request);

	/**
	 * Seeds a tenant whose seed is not recorded yet: retries a seed that failed at creation (a
	 * {@link TenantSeedException} with {@link TenantSeedException#rolledBack()} true). Every
	 * {@link io.github.shardtenancy.spi.TenantSeeder} of the tenancy runs in one transaction on the tenant's shard, and
	 * the seed is recorded in the directory history ({@code TENANT_SEEDED}) in the directory transaction that also
	 * keeps two seeds of a tenant from running at once. A tenant seeded already (also one moved since), or a tenancy
	 * with no seeders, is left alone, so calling it again is harmless.
	 * @param tenantId an ACTIVE tenant
	 * @return whether it was seeded now
	 * @throws UnknownTenantException if it has no entry
	 * @throws DirectoryConflictException if it is not ACTIVE (being moved, or deleted)
	 * @throws TenantSeedException if the seed fails, or cannot start (a {@link TenantSwitchedException} cause: another
	 * tenant's shard connection is held on this thread)
	 */
	boolean seed(String tenantId);

	/**
	 * Deletes a tenant: its entry becomes DELETED (routers then refuse it with {@link TenantDeletedException}) and its
	 * owner's fence refuses it from this version on. Its rows stay on its shard until {@link #purge(String)}.
	 * @param tenantId the tenant
	 * @return the DELETED entry; never {@code null}
	 * @throws UnknownTenantException if it has no entry
	 * @throws DirectoryConflictException if it is not ACTIVE (being moved, or already deleted), or changed meanwhile
	 */
	DirectoryEntry delete(String tenantId);

	/**
	 * Purges a DELETED tenant: removes its rows from every tenant table of its shard (children first, one
	 * transaction) and records the purge in the history. The entry stays DELETED.
	 * @param tenantId the tenant
	 * @return the number of rows deleted, {@code >= 0}
	 * @throws UnknownTenantException if it has no entry
	 * @throws DirectoryConflictException if it is not DELETED
	 * @throws ShardTenancyException if its shard cannot be written
	 */
	long purge(String tenantId);

	/**
	 * Pins a tenant: slot moves and drains leave it where it is. Idempotent.
	 * @param tenantId the tenant
	 * @return whether it was not pinned before
	 */
	boolean pin(String tenantId);

	/**
	 * Unpins a tenant. Idempotent.
	 * @param tenantId the tenant
	 * @return whether it was pinned
	 */
	boolean unpin(String tenantId);

	/**
	 * @param tenantId a tenant
	 * @return whether it is pinned
	 */
	boolean isPinned(String tenantId);

	/**
	 * Moves a tenant stop-the-world (frozen for the copy, then flipped), on the calling thread; see
	 * {@link TenantMover#moveAndWait(String, String, MoveSettings)}, which documents the exceptions.
	 * @param tenantId the tenant
	 * @param targetShardId the new owner
	 * @return what the move did (DONE, or FLIPPED while the source waits for the clean delay); never {@code null}
	 * @throws MoveException if the move is refused or fails (the tenant then stays on, or returns to, its source)
	 * @throws MoveInProgressException if another move of the tenant is under way
	 */
	MoveResult move(String tenantId, String targetShardId);

	/**
	 * Sets a tenant's override (checked before its slot) and, if the tenant exists on another shard, moves it there
	 * online. An override is an explicit decision: it applies to pinned tenants too.
	 * @param tenantId the tenant
	 * @param shardId an ACTIVE registered shard
	 * @return whether the tenant was moved
	 * @throws PlacementException if the shard is not ACTIVE
	 * @throws MoveException if the move fails (the override stays recorded; setting it again retries)
	 */
	boolean override(String tenantId, String shardId);

	/**
	 * Removes a tenant's override; the tenant stays where it is.
	 * @param tenantId the tenant
	 * @return whether it had one
	 */
	boolean removeOverride(String tenantId);

	/**
	 * Initialises fixed-slot mode (the {@code slots} placement policy and {@link #moveSlot}): records the slot count,
	 * fixed from then on, and assigns the slots round-robin over the given shards. A tenant's slot is
	 * {@code CRC32(tenant id as UTF-8) mod slotCount}. Idempotent for the same count.
	 * @param slotCount the number of slots, at least 1 (4096 is a usual choice)
	 * @param shardIds ACTIVE registered shards to spread the slots over, at least one; never {@code null}
	 * @throws PlacementException if the directory already has another slot count, or a shard is not ACTIVE
	 * @throws IllegalArgumentException if {@code slotCount < 1} or {@code shardIds} is empty
	 * @throws DirectoryUnavailableException if the directory cannot be written
	 */
	void initializeSlots(int slotCount, List<String> shardIds);

	/**
	 * Moves a slot: assigns it to the target (tenants created from then on go there), then moves each of its tenants
	 * that lives elsewhere online, except pinned tenants and tenants with an override. A failed tenant move stops the
	 * slot move and propagates; calling it again moves the rest.
	 * @param slot the slot, {@code 0 <= slot < slot count}
	 * @param targetShardId an ACTIVE registered shard
	 * @return what was moved and what was left; never {@code null}
	 * @throws PlacementException if slot mode is not initialised, the slot does not exist or the target is not ACTIVE
	 * @throws MoveException if a tenant's move fails
	 */
	SlotMoveResult moveSlot(int slot, String targetShardId);

	/**
	 * Moves every ACTIVE, unpinned tenant off a shard (before retiring it), online, each to the shard the placement
	 * policy chooses among the other ACTIVE shards (in the drained shard's region if it has one).
	 * @param shardId the shard to empty
	 * @return the tenants moved, in order; never {@code null}
	 * @throws ShardStateException if the shard is not registered
	 * @throws PlacementException if no other shard fits
	 * @throws MoveException if a move fails (the tenants moved so far stay moved)
	 */
	List<String> drain(String shardId);

	/**
	 * Reads a tenant's entry in the directory now (not in this instance's cache: {@link TenantRouter#cached}).
	 * @param tenantId a tenant
	 * @return its entry (also a DELETED one); empty if it has none
	 */
	Optional<DirectoryEntry> find(String tenantId);

	/**
	 * Reads every entry of the directory (DELETED ones included) in one consistent snapshot, streamed: memory does
	 * not grow with the directory.
	 * @param consumer called once per entry, on the calling thread, in no particular order
	 * @return the directory version of the snapshot
	 */
	long snapshot(Consumer<DirectoryEntry> consumer);

	/**
	 * @param tenantId a tenant
	 * @return every change of its entry, oldest first; empty for an unknown tenant; never {@code null}
	 */
	List<DirectoryHistoryRecord> history(String tenantId);

	/**
	 * Which shard owned a tenant at a moment: the owner recorded by the last change that committed at or before it.
	 * @param tenantId the tenant
	 * @param at the moment, compared with the directory database's commit timestamps
	 * @return the owner then; empty if the tenant did not exist yet
	 * @throws InvalidTenantIdException if the id breaks the tenant id rule
	 */
	Optional<Ownership> ownerAt(String tenantId, Instant at);

	/**
	 * @param sinceVersion the exclusive lower bound on the directory version (0 for all)
	 * @return the lifecycle events (shards, slots, overrides, pins, purges) after that version, oldest first; never
	 * {@code null}
	 */
	List<DirectoryEvent> events(long sinceVersion);

	/**
	 * Registers a shard of this instance's topology (configured on the builder): migrates it with the
	 * {@link io.github.shardtenancy.spi.ShardMigrator}, installs the fence write check and change capture on its tenant
	 * tables, and records it ACTIVE (eligible for placement and moves).
	 * @param shardId a shard of the topology
	 * @param region its region, or {@code null}
	 * @param jdbcUrl the JDBC URL other instances connect with, or {@code null}
	 * @param username the database user, or {@code null}
	 * @return the registry row; never {@code null}
	 * @throws UnknownShardException if the topology does not have it
	 * @throws ShardStateException if the shard was retired (a retired id is never reused)
	 * @throws ShardTenancyConfigurationException if the shard cannot be migrated or prepared
	 */
	ShardRecord registerShard(String shardId, String region, String jdbcUrl, String username);

	/**
	 * Registers a new shard at runtime: adds a pool for it to this instance's topology, migrates it with the
	 * {@link io.github.shardtenancy.spi.ShardMigrator}, installs the fence write check and change capture on its tenant
	 * tables, and records it ACTIVE; other instances add it on their next {@link #syncShards()} or first use, with
	 * their {@link io.github.shardtenancy.spi.ShardPoolFactory}. Registering an ACTIVE shard again migrates it again and
	 * updates its region and settings.
	 * @param shardId the shard's id: 1 to 64 letters, digits, {@code . _ -}
	 * @param region its region, or {@code null}
	 * @param config its pool settings; the JDBC URL and user name are recorded for other instances, the password is
	 * not; never {@code null}
	 * @return the registry row; never {@code null}
	 * @throws ShardStateException if the shard was retired
	 * @throws ShardTenancyConfigurationException if the id is malformed, or the database cannot be reached, migrated
	 * or prepared (the shard is then not registered and its new pool closed)
	 */
	ShardRecord registerShard(String shardId, String region, HikariConfig config);

	/**
	 * Retires a shard: refused while it owns anything; otherwise recorded RETIRED, and its pool on this instance is
	 * closed and dropped.
	 * @param shardId the shard
	 * @return the registry row as written; never {@code null}
	 * @throws ShardStateException if the shard is not registered, is already retired, still owns tenants, slots or
	 * overrides, or holds DELETED tenants not purged yet
	 */
	ShardRecord retireShard(String shardId);

	/**
	 * Points a shard at a new primary database after a failover: a topology change only. The shard keeps its logical
	 * id, so no directory entry changes and no tenant is re-routed; this instance's pool is replaced (the old one
	 * closed; transactions in flight on it finish or fail there and are retried on the new one) and the registry row's
	 * JDBC URL and user name are updated. Replicas of the shard are left as they are (remove or re-add those that
	 * followed the old primary).
	 * @param shardId a shard of this instance's topology
	 * @param newPrimary the new primary's pool settings; the password is not recorded; never {@code null}
	 * @return the registry row as written; never {@code null}
	 * @throws io.github.shardtenancy.UnknownShardException if the shard is not in this instance's topology
	 * @throws ShardStateException if the shard is retired
	 * @throws ShardTenancyConfigurationException if the new primary cannot be reached or no fence dialect supports it
	 * @throws DirectoryUnavailableException if the registry cannot be written (the pool is replaced all the same)
	 */
	ShardRecord failoverShard(String shardId, HikariConfig newPrimary);

	/**
	 * @return every registry row, sorted by shard id; never {@code null}
	 */
	List<ShardRecord> shards();

	/**
	 * Aligns this instance with the registry and the slot table: drops the pools of RETIRED shards, adds ACTIVE shards
	 * registered by other instances, and reloads the slot table if it changed.
	 * @return the registry rows read; never {@code null}
	 */
	List<ShardRecord> syncShards();

	/**
	 * @return the read replicas recorded in the directory database (those configured on any instance), sorted by shard
	 * and name; never {@code null}
	 * @throws DirectoryUnavailableException if the directory cannot be read
	 */
	List<ReplicaRecord> replicas();

}
