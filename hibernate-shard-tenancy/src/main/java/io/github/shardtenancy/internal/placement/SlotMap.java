package io.github.shardtenancy.internal.placement;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.zip.CRC32;

import io.github.shardtenancy.DirectoryUnavailableException;
import io.github.shardtenancy.PlacementException;
import io.github.shardtenancy.TenantIds;
import io.github.shardtenancy.internal.directory.Directory;
import io.github.shardtenancy.internal.directory.DirectoryEvents;
import io.github.shardtenancy.ShardRecord;
import io.github.shardtenancy.internal.topology.ShardRegistry;

/**
 * Fixed slots with per-tenant overrides: a tenant
 * hashes to one of N slots ({@code CRC32(tenant id, UTF-8) mod N}); the slot table maps each slot to a shard; the
 * override table maps chosen tenants (the largest, or the most regulated) to named shards and is checked first.
 *
 * <p>N is chosen once, by {@link #initialize}, and stored in the directory ({@code shard_slot_config}); it is fixed for
 * the life of the directory. The whole map (N shard ids plus the overrides) is held in memory and reloaded by
 * {@link #refresh()} when the directory version moved; with the default 4096 slots it is a few tens of kilobytes.
 *
 * <p>How it is used: {@link io.github.shardtenancy.spi.SlotPlacement} places new tenants on their slot's shard (an override wins), inside the
 * directory transaction that writes the entry; the entry then routes the tenant as every entry does, so the shard
 * fence, retries and moves work unchanged. Moving a slot
 * ({@link io.github.shardtenancy.internal.lifecycle.TenantLifecycle#moveSlot}) reassigns it and moves its tenants with the
 * mover; setting an override moves the tenant. {@link #shardFor(String)} answers where the slot map puts a tenant.
 *
 * <p>Thread-safe: the in-memory map is replaced as a whole, never mutated.
 */
public class SlotMap {

	/** The default slot count; the count is fixed for the life of the directory, so it is chosen generously. */
	public static final int DEFAULT_SLOT_COUNT = 4096;

	private record State(long version, int slotCount, String[] slots, Map<String, String> overrides) {
	}

	private final Directory directory;

	private volatile State state = new State(-1, 0, new String[0], Map.of());

	/** @param directory the directory holding the slot and override tables */
	public SlotMap(Directory directory) {
		this.directory = Objects.requireNonNull(directory, "directory");
	}

	/**
	 * @param tenantId a tenant
	 * @param slotCount the slot count
	 * @return the tenant's slot: {@code CRC32(tenantId as UTF-8) mod slotCount}
	 */
	public static int slotOf(String tenantId, int slotCount) {
		CRC32 crc = new CRC32();
		crc.update(tenantId.getBytes(StandardCharsets.UTF_8));
		return (int) (crc.getValue() % slotCount);
	}

	/**
	 * Initialises fixed-slot mode: records the slot count and assigns the slots round-robin over the given shards.
	 * Idempotent for the same count (nothing is changed then).
	 * @param slotCount the number of slots, at least 1, fixed from now on
	 * @param shardIds ACTIVE registered shards to spread the slots over, at least one
	 * @param actor who acts, recorded in the history
	 * @return this map, loaded
	 * @throws PlacementException if the directory already has another slot count, or a shard is not ACTIVE
	 * @throws DirectoryUnavailableException if the directory cannot be written
	 */
	public SlotMap initialize(int slotCount, List<String> shardIds, String actor) {
		if (slotCount < 1 || shardIds.isEmpty()) {
			throw new IllegalArgumentException("Need at least one slot and one shard, got " + slotCount + " slots and "
					+ shardIds + " shards");
		}
		this.directory.transaction((c, version) -> {
			int existing = readSlotCount(c);
			if (existing > 0) {
				if (existing != slotCount) {
					throw new PlacementException("The directory already has " + existing + " slots; the slot count is "
							+ "fixed for the life of the directory (asked for " + slotCount + ", directory version "
							+ version + ")", null, null, version);
				}
				return null;
			}
			List<String> active = ShardRegistry.active(c).stream().map(ShardRecord::shardId).toList();
			for (String shardId : shardIds) {
				if (!active.contains(shardId)) {
					throw new PlacementException("Shard '" + shardId + "' is not an ACTIVE registered shard (directory "
							+ "version " + version + ")", null, shardId, version);
				}
			}
			try (PreparedStatement ps = c.prepareStatement("INSERT INTO shard_slot_config (id, slot_count, version, "
					+ "created_at) VALUES (1, ?, ?, CURRENT_TIMESTAMP)")) {
				ps.setInt(1, slotCount);
				ps.setLong(2, version);
				ps.executeUpdate();
			}
			try (PreparedStatement ps = c.prepareStatement("INSERT INTO shard_slot (slot, shard_id, version, updated_at, "
					+ "updated_by) VALUES (?, ?, ?, CURRENT_TIMESTAMP, ?)")) {
				for (int slot = 0; slot < slotCount; slot++) {
					ps.setInt(1, slot);
					ps.setString(2, shardIds.get(slot % shardIds.size()));
					ps.setLong(3, version);
					ps.setString(4, actor);
					ps.addBatch();
					if (slot % 1000 == 999) {
						ps.executeBatch();
					}
				}
				ps.executeBatch();
			}
			DirectoryEvents.record(c, version, "SLOTS_INITIALIZED", "slots", null,
					slotCount + " slots over " + shardIds, actor);
			return null;
		});
		return load();
	}

	/**
	 * Reads the slot count, the slot table and the overrides into memory.
	 * @return this map
	 * @throws DirectoryUnavailableException if the directory cannot be read
	 */
	public SlotMap load() {
		try (Connection c = this.directory.dataSource().getConnection()) {
			long version;
			try (PreparedStatement ps = c.prepareStatement("SELECT version FROM shard_directory_version WHERE id = 1");
					ResultSet rs = ps.executeQuery()) {
				version = rs.next() ? rs.getLong(1) : 0;
			}
			int count = readSlotCount(c);
			String[] slots = new String[Math.max(count, 0)];
			try (PreparedStatement ps = c.prepareStatement("SELECT slot, shard_id FROM shard_slot");
					ResultSet rs = ps.executeQuery()) {
				while (rs.next()) {
					int slot = rs.getInt(1);
					if (slot >= 0 && slot < slots.length) {
						slots[slot] = rs.getString(2);
					}
				}
			}
			Map<String, String> overrides = new HashMap<>();
			try (PreparedStatement ps = c.prepareStatement("SELECT tenant_id, shard_id FROM shard_tenant_override");
					ResultSet rs = ps.executeQuery()) {
				while (rs.next()) {
					overrides.put(rs.getString(1), rs.getString(2));
				}
			}
			this.state = new State(version, count, slots, Map.copyOf(overrides));
			return this;
		}
		catch (SQLException ex) {
			throw new DirectoryUnavailableException(null, -1, ex);
		}
	}

	/**
	 * Reloads the map if the directory version moved since it was loaded (every slot or override change bumps it).
	 * @return whether it was reloaded
	 * @throws DirectoryUnavailableException if the directory cannot be read
	 */
	public boolean refresh() {
		if (this.directory.currentVersion() == this.state.version()) {
			return false;
		}
		load();
		return true;
	}

	/** @return whether fixed-slot mode is initialised (as of the last load) */
	public boolean isInitialized() {
		return this.state.slotCount() > 0;
	}

	/** @return the slot count, 0 if not initialised (as of the last load) */
	public int slotCount() {
		return this.state.slotCount();
	}

	/**
	 * @param tenantId a tenant
	 * @return its slot
	 * @throws PlacementException if slot mode is not initialised
	 */
	public int slotOf(String tenantId) {
		State s = requireInitialized();
		return slotOf(TenantIds.requireValid(tenantId), s.slotCount());
	}

	/**
	 * @param slot a slot
	 * @return the shard the slot table assigns it to
	 * @throws PlacementException if slot mode is not initialised
	 * @throws IllegalArgumentException if the slot is out of range
	 */
	public String shardOfSlot(int slot) {
		State s = requireInitialized();
		if (slot < 0 || slot >= s.slotCount()) {
			throw new IllegalArgumentException("Slot " + slot + " is outside 0.." + (s.slotCount() - 1));
		}
		return s.slots()[slot];
	}

	/**
	 * Where the slot map puts a tenant: its override if it has one, else its slot's shard.
	 * @param tenantId a tenant
	 * @return the shard
	 * @throws PlacementException if the tenant has no override and slot mode is not initialised
	 */
	public String shardFor(String tenantId) {
		String override = this.state.overrides().get(tenantId);
		return override != null ? override : shardOfSlot(slotOf(tenantId));
	}

	/**
	 * @param tenantId a tenant
	 * @return its override, as of the last load
	 */
	public Optional<String> override(String tenantId) {
		return Optional.ofNullable(this.state.overrides().get(tenantId));
	}

	/**
	 * @param shardId a shard
	 * @return how many slots the slot table assigns to it, as of the last load
	 */
	public long slotsOn(String shardId) {
		return java.util.Arrays.stream(this.state.slots()).filter(shardId::equals).count();
	}

	/**
	 * Assigns a slot to a shard in the slot table; the caller moves the slot's tenants (see
	 * {@link io.github.shardtenancy.internal.lifecycle.TenantLifecycle#moveSlot}). Tenants created from now on are placed on
	 * the new shard: the write takes the directory version lock that placement also takes.
	 * @param slot the slot
	 * @param shardId an ACTIVE registered shard
	 * @param actor who acts, recorded in the history
	 * @return the shard the slot was assigned to before
	 * @throws PlacementException if slot mode is not initialised, the slot is out of range or the shard is not ACTIVE
	 * @throws DirectoryUnavailableException if the directory cannot be written
	 */
	public String assignSlot(int slot, String shardId, String actor) {
		String before = this.directory.transaction((c, version) -> {
			int count = readSlotCount(c);
			if (count <= 0 || slot < 0 || slot >= count) {
				throw new PlacementException("Slot " + slot + " does not exist (" + count + " slots, directory version "
						+ version + ")", null, shardId, version);
			}
			requireActive(c, shardId, version);
			String previous;
			try (PreparedStatement ps = c.prepareStatement("SELECT shard_id FROM shard_slot WHERE slot = ? FOR UPDATE")) {
				ps.setInt(1, slot);
				try (ResultSet rs = ps.executeQuery()) {
					previous = rs.next() ? rs.getString(1) : null;
				}
			}
			try (PreparedStatement ps = c.prepareStatement("UPDATE shard_slot SET shard_id = ?, version = ?, "
					+ "updated_at = CURRENT_TIMESTAMP, updated_by = ? WHERE slot = ?")) {
				ps.setString(1, shardId);
				ps.setLong(2, version);
				ps.setString(3, actor);
				ps.setInt(4, slot);
				ps.executeUpdate();
			}
			DirectoryEvents.record(c, version, "SLOT_ASSIGNED", "slot " + slot, previous, shardId, actor);
			return previous;
		});
		load();
		return before;
	}

	/**
	 * Records a tenant's override (the caller moves the tenant there if it lives elsewhere).
	 * @param tenantId the tenant
	 * @param shardId an ACTIVE registered shard
	 * @param actor who acts, recorded in the history
	 * @return the previous override, or empty
	 * @throws PlacementException if the shard is not ACTIVE
	 * @throws DirectoryUnavailableException if the directory cannot be written
	 */
	public Optional<String> putOverride(String tenantId, String shardId, String actor) {
		TenantIds.requireValid(tenantId);
		String before = this.directory.transaction((c, version) -> {
			requireActive(c, shardId, version);
			String previous = overrideOf(c, tenantId);
			String sql = previous == null
					? "INSERT INTO shard_tenant_override (shard_id, version, updated_at, updated_by, tenant_id) "
							+ "VALUES (?, ?, CURRENT_TIMESTAMP, ?, ?)"
					: "UPDATE shard_tenant_override SET shard_id = ?, version = ?, updated_at = CURRENT_TIMESTAMP, "
							+ "updated_by = ? WHERE tenant_id = ?";
			try (PreparedStatement ps = c.prepareStatement(sql)) {
				ps.setString(1, shardId);
				ps.setLong(2, version);
				ps.setString(3, actor);
				ps.setString(4, tenantId);
				ps.executeUpdate();
			}
			DirectoryEvents.record(c, version, "OVERRIDE_SET", tenantId, previous, shardId, actor);
			return previous;
		});
		load();
		return Optional.ofNullable(before);
	}

	/**
	 * Removes a tenant's override; the tenant stays where it is until moved.
	 * @param tenantId the tenant
	 * @param actor who acts, recorded in the history
	 * @return whether it had one
	 * @throws DirectoryUnavailableException if the directory cannot be written
	 */
	public boolean removeOverride(String tenantId, String actor) {
		TenantIds.requireValid(tenantId);
		boolean removed = this.directory.transaction((c, version) -> {
			String previous = overrideOf(c, tenantId);
			if (previous == null) {
				return false;
			}
			try (PreparedStatement ps = c.prepareStatement("DELETE FROM shard_tenant_override WHERE tenant_id = ?")) {
				ps.setString(1, tenantId);
				ps.executeUpdate();
			}
			DirectoryEvents.record(c, version, "OVERRIDE_REMOVED", tenantId, previous, null, actor);
			return true;
		});
		load();
		return removed;
	}

	private static void requireActive(Connection c, String shardId, long version) throws SQLException {
		if (ShardRegistry.active(c).stream().noneMatch(r -> r.shardId().equals(shardId))) {
			throw new PlacementException("Shard '" + shardId + "' is not an ACTIVE registered shard (directory version "
					+ version + ")", null, shardId, version);
		}
	}

	private State requireInitialized() {
		State s = this.state;
		if (s.slotCount() <= 0) {
			throw new PlacementException("Fixed-slot mode is not initialised (TenantAdmin.initializeSlots)", null, null, -1);
		}
		return s;
	}

	/**
	 * @param c a directory connection
	 * @return the slot count, or 0 if slot mode is not initialised
	 * @throws SQLException on a directory error
	 */
	static int readSlotCount(Connection c) throws SQLException {
		try (PreparedStatement ps = c.prepareStatement("SELECT slot_count FROM shard_slot_config WHERE id = 1");
				ResultSet rs = ps.executeQuery()) {
			return rs.next() ? rs.getInt(1) : 0;
		}
	}

	/** A tenant's slot and the shard the slot table assigns it to ({@code null} if the row is missing). */
	record SlotAssignment(int slot, String shardId) {
	}

	/**
	 * Reads, in a directory transaction, a tenant's slot and that slot's shard.
	 * @param c the directory transaction
	 * @param tenantId the tenant
	 * @return the assignment, or {@code null} if slot mode is not initialised
	 * @throws SQLException on a directory error
	 */
	static SlotAssignment slotAndShard(Connection c, String tenantId) throws SQLException {
		int count = readSlotCount(c);
		if (count <= 0) {
			return null;
		}
		int slot = slotOf(tenantId, count);
		try (PreparedStatement ps = c.prepareStatement("SELECT shard_id FROM shard_slot WHERE slot = ?")) {
			ps.setInt(1, slot);
			try (ResultSet rs = ps.executeQuery()) {
				return new SlotAssignment(slot, rs.next() ? rs.getString(1) : null);
			}
		}
	}

	/**
	 * Reads, in a directory transaction, a tenant's override.
	 * @param c the directory transaction
	 * @param tenantId the tenant
	 * @return the override shard, or {@code null}
	 * @throws SQLException on a directory error
	 */
	static String overrideOf(Connection c, String tenantId) throws SQLException {
		try (PreparedStatement ps = c.prepareStatement("SELECT shard_id FROM shard_tenant_override WHERE tenant_id = ?")) {
			ps.setString(1, tenantId);
			try (ResultSet rs = ps.executeQuery()) {
				return rs.next() ? rs.getString(1) : null;
			}
		}
	}

}
