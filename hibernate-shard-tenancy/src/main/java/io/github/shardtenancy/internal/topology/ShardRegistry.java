package io.github.shardtenancy.internal.topology;

import io.github.shardtenancy.ShardRecord;
import io.github.shardtenancy.ShardState;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import io.github.shardtenancy.DirectoryUnavailableException;
import io.github.shardtenancy.ReplicaRecord;
import io.github.shardtenancy.ShardStateException;
import io.github.shardtenancy.internal.directory.Directory;
import io.github.shardtenancy.internal.directory.DirectoryEvents;
import io.github.shardtenancy.spi.ShardPoolFactory;
import io.github.shardtenancy.spi.ShardMigrator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The shard registry ({@code shard_registry} in the directory database): the shards placement and moves may use,
 * with their region, state and connection settings. Shards come and go while the application runs:
 *
 * <ul>
 * <li>{@link #register}: the shard is added to this instance's topology, migrated by the {@link ShardMigrator}, and
 * only then recorded ACTIVE, so no tenant can be placed on (or moved to) a shard whose schema is not there yet;</li>
 * <li>{@link #retire}: refused while any entry names the shard as owner or move target, a DELETED tenant on it is
 * not purged yet, or a slot or an override points at it; otherwise it is recorded RETIRED and its pool on this instance is closed and
 * dropped. Other instances drop theirs at their next {@link #sync()}; until then a route of theirs that still names
 * the shard is rejected by its fence and retried (the shard moved every tenant away before it could be retired), and
 * once the pool is gone the connection provider treats the route as stale and reads the directory again.</li>
 * </ul>
 *
 * <p>The registry is the topology's {@link Topology.MissingShardSource}: an instance that meets a shard another
 * instance registered adds it on first use, with the {@link ShardPoolFactory}'s settings.
 *
 * <p>Every change runs in one directory transaction that bumps the directory version and is recorded in
 * {@code shard_directory_event}. Thread-safe.
 */
public class ShardRegistry {

	private static final Logger log = LoggerFactory.getLogger(ShardRegistry.class);

	private static final String COLUMNS = "shard_id, region, state, jdbc_url, username, version";

	private final Directory directory;

	private final Topology topology;

	private final ShardMigrator migrator;

	private final ShardPoolFactory connector;

	private final String actor;

	private volatile RegistrationHook registrationHook = (transaction, shardId) -> {
	};

	/** Work run in the directory transaction that records a shard ACTIVE, before it commits. */
	@FunctionalInterface
	public interface RegistrationHook {

		/**
		 * @param directoryTransaction the registration's directory transaction (do not commit or close it)
		 * @param shardId the shard being recorded ACTIVE
		 * @throws RuntimeException to refuse the registration (the transaction is rolled back)
		 */
		void registering(Connection directoryTransaction, String shardId);

	}

	/** @param hook run in the directory transaction that records a shard ACTIVE (reference data catch-up) */
	public void setRegistrationHook(RegistrationHook hook) {
		this.registrationHook = Objects.requireNonNull(hook, "hook");
	}

	/**
	 * Creates the registry and makes it the topology's source for missing shards.
	 * @param directory the directory (its database holds the registry)
	 * @param topology this instance's shards
	 * @param migrator migrates a shard before it is registered
	 * @param connector pool settings for shards registered by other instances
	 * @param actor who acts, recorded in the history
	 */
	public ShardRegistry(Directory directory, Topology topology, ShardMigrator migrator, ShardPoolFactory connector,
			String actor) {
		this.directory = Objects.requireNonNull(directory, "directory");
		this.topology = Objects.requireNonNull(topology, "topology");
		this.migrator = Objects.requireNonNull(migrator, "migrator");
		this.connector = Objects.requireNonNull(connector, "connector");
		this.actor = Objects.requireNonNull(actor, "actor");
		topology.setMissingShardSource(this::poolFor);
	}

	/**
	 * Registers a new shard at runtime: adds a pool for it to this instance's topology, migrates it, then records it
	 * ACTIVE (eligible for placement and moves). Registering an ACTIVE shard again migrates it again and updates its
	 * region and settings.
	 * @param shardId the shard id
	 * @param region its region, or {@code null}
	 * @param config its pool settings; the JDBC URL and user name are recorded for other instances, the password is not
	 * @return the registry row
	 * @throws ShardStateException if the shard was retired (a retired id is never reused)
	 * @throws io.github.shardtenancy.ShardTenancyConfigurationException if the id is malformed or the database cannot
	 * be reached
	 * @throws RuntimeException whatever the migrator throws; the shard is then not registered and the pool is closed
	 */
	public ShardRecord register(String shardId, String region, HikariConfig config) {
		requireNotRetired(shardId);
		boolean added = false;
		Topology.Shard shard = this.topology.find(shardId).orElse(null);
		if (shard == null) {
			shard = this.topology.addShard(shardId, config);
			added = true;
		}
		return migrateAndRecord(shard, region, config.getJdbcUrl(), config.getUsername(), added);
	}

	/**
	 * Registers a shard that is already in this instance's topology (configured at start-up): migrates it (again) and
	 * records it ACTIVE.
	 * @param shardId a shard of the topology
	 * @param region its region, or {@code null}
	 * @param jdbcUrl the JDBC URL other instances connect with, or {@code null}
	 * @param username the database user, or {@code null}
	 * @return the registry row
	 * @throws io.github.shardtenancy.UnknownShardException if the topology does not have it
	 * @throws ShardStateException if the shard was retired
	 */
	public ShardRecord register(String shardId, String region, String jdbcUrl, String username) {
		requireNotRetired(shardId);
		return migrateAndRecord(this.topology.shard(shardId), region, jdbcUrl, username, false);
	}

	private ShardRecord migrateAndRecord(Topology.Shard shard, String region, String jdbcUrl, String username,
			boolean added) {
		try {
			this.migrator.migrate(shard.id(), shard.dataSource(), shard.dialect());
		}
		catch (RuntimeException ex) {
			if (added) {
				this.topology.removeShard(shard.id());
			}
			throw ex;
		}
		return record(shard.id(), region, jdbcUrl, username);
	}

	/**
	 * Records a shard of this instance's topology ACTIVE without migrating it: for shards the caller has just migrated
	 * itself (the Spring Boot module migrates the configured shards at start-up, then adopts them).
	 * @param shardId a shard of the topology, already migrated
	 * @param region its region, or {@code null}
	 * @param jdbcUrl the JDBC URL other instances connect with, or {@code null}
	 * @param username the database user, or {@code null}
	 * @return the registry row
	 * @throws io.github.shardtenancy.UnknownShardException if the topology does not have it
	 * @throws ShardStateException if the shard was retired
	 */
	public ShardRecord adopt(String shardId, String region, String jdbcUrl, String username) {
		this.topology.shard(shardId);
		return record(shardId, region, jdbcUrl, username);
	}

	private ShardRecord record(String shardId, String region, String jdbcUrl, String username) {
		return record(shardId, region, jdbcUrl, username, "SHARD_REGISTERED");
	}

	private ShardRecord record(String shardId, String region, String jdbcUrl, String username, String event) {
		ShardRecord existing = find(shardId).orElse(null);
		if (existing != null && existing.state() == ShardState.ACTIVE && Objects.equals(existing.region(), region)
				&& Objects.equals(existing.jdbcUrl(), jdbcUrl) && Objects.equals(existing.username(), username)) {
			return existing; // unchanged: no directory write, no new version
		}
		ShardRecord record = this.directory.transaction((c, version) -> {
			ShardRecord before = read(c, shardId, true);
			if (before != null && before.state() == ShardState.RETIRED) {
				throw retired(shardId, version);
			}
			String sql = before == null
					? "INSERT INTO shard_registry (region, state, jdbc_url, username, version, updated_at, updated_by, "
							+ "shard_id) VALUES (?, ?, ?, ?, ?, CURRENT_TIMESTAMP, ?, ?)"
					: "UPDATE shard_registry SET region = ?, state = ?, jdbc_url = ?, username = ?, version = ?, "
							+ "updated_at = CURRENT_TIMESTAMP, updated_by = ? WHERE shard_id = ?";
			try (PreparedStatement ps = c.prepareStatement(sql)) {
				ps.setString(1, region);
				ps.setString(2, ShardState.ACTIVE.name());
				ps.setString(3, jdbcUrl);
				ps.setString(4, username);
				ps.setLong(5, version);
				ps.setString(6, this.actor);
				ps.setString(7, shardId);
				ps.executeUpdate();
			}
			this.registrationHook.registering(c, shardId);
			if (event.equals("SHARD_FAILOVER")) {
				try (PreparedStatement ps = c.prepareStatement("DELETE FROM shard_replica WHERE shard_id = ?")) {
					ps.setString(1, shardId);
					ps.executeUpdate();
				}
			}
			DirectoryEvents.record(c, version, event, shardId,
					before != null ? describe(before) : null, "ACTIVE region=" + region + " url=" + jdbcUrl,
					this.actor);
			return new ShardRecord(shardId, region, ShardState.ACTIVE, jdbcUrl, username, version);
		});
		log.info("Shard '{}' registered ACTIVE (region {}, directory version {})", shardId, region,
				record.version());
		return record;
	}

	/**
	 * Points a shard at a new primary (a failover): replaces its pool in this instance's topology, then records the new
	 * JDBC URL and user name in the registry (an event {@code SHARD_FAILOVER}). No directory entry changes. The shard's
	 * replicas are dropped from this instance's topology and from the registry: they followed the old primary, and a
	 * replica of a diverged timeline could report a replay position past the new primary's and serve stale reads.
	 * @param shardId a shard of the topology
	 * @param config the new primary's settings
	 * @return the registry row as written
	 * @throws io.github.shardtenancy.UnknownShardException if the topology does not have the shard
	 * @throws ShardStateException if the shard is retired
	 * @throws io.github.shardtenancy.ShardTenancyConfigurationException if the new primary cannot be reached
	 */
	public ShardRecord failover(String shardId, HikariConfig config) {
		requireNotRetired(shardId);
		this.topology.replacePrimary(shardId, config);
		List<String> dropped = this.topology.removeReplicas(shardId).stream().map(Object::toString).toList();
		if (!dropped.isEmpty()) {
			log.warn("Shard '{}': its replicas {} no longer serve reads after the failover (they followed the old "
					+ "primary, and their replay position cannot be compared with the new one's); add them again once "
					+ "they follow the new primary", shardId, dropped);
		}
		String region = find(shardId).map(ShardRecord::region).orElse(null);
		ShardRecord record = record(shardId, region, config.getJdbcUrl(), config.getUsername(), "SHARD_FAILOVER");
		log.info("Shard '{}' now has its primary at {} (directory version {}); no directory entry changed", shardId,
				config.getJdbcUrl(), record.version());
		return record;
	}

	/**
	 * Retires a shard: refused while it owns anything; otherwise recorded RETIRED, and its pool on this instance is
	 * closed and dropped.
	 * @param shardId the shard
	 * @return the registry row as written
	 * @throws ShardStateException if the shard is not registered, is already retired, or still owns tenants (as owner
	 * or move target), slots or overrides (the message says how many), or holds DELETED tenants not purged yet (the
	 * message names them: purge them first, since a retired shard can no longer be purged)
	 * @throws DirectoryUnavailableException if the directory cannot be written
	 */
	public ShardRecord retire(String shardId) {
		ShardRecord record = this.directory.transaction((c, version) -> {
			ShardRecord before = read(c, shardId, true);
			if (before == null) {
				throw new ShardStateException("Cannot retire shard '" + shardId + "': it is not registered "
						+ "(directory version " + version + ")", shardId, version);
			}
			if (before.state() == ShardState.RETIRED) {
				throw retired(shardId, version);
			}
			long tenants = count(c, "SELECT COUNT(*) FROM shard_directory_entry WHERE (shard_id = ? OR "
					+ "target_shard_id = ?) AND state <> 'DELETED'", shardId, shardId);
			long slots = count(c, "SELECT COUNT(*) FROM shard_slot WHERE shard_id = ?", shardId);
			long overrides = count(c, "SELECT COUNT(*) FROM shard_tenant_override WHERE shard_id = ?", shardId);
			if (tenants + slots + overrides > 0) {
				throw new ShardStateException("Cannot retire shard '" + shardId + "': it still owns " + tenants
						+ " tenant(s), " + slots + " slot(s) and " + overrides + " override(s) (directory version "
						+ version + "); move them away first", shardId, version);
			}
			List<String> unpurged = unpurgedTenants(c, shardId);
			if (!unpurged.isEmpty()) {
				throw new ShardStateException("Cannot retire shard '" + shardId + "': it still holds the rows of "
						+ unpurged.size() + " DELETED tenant(s) not purged yet " + unpurged + " (directory version "
						+ version + "); purge them first (TenantLifecycle.purge), a retired shard cannot be purged",
						shardId, version);
			}
			try (PreparedStatement ps = c.prepareStatement("UPDATE shard_registry SET state = ?, version = ?, "
					+ "updated_at = CURRENT_TIMESTAMP, updated_by = ? WHERE shard_id = ?")) {
				ps.setString(1, ShardState.RETIRED.name());
				ps.setLong(2, version);
				ps.setString(3, this.actor);
				ps.setString(4, shardId);
				ps.executeUpdate();
			}
			DirectoryEvents.record(c, version, "SHARD_RETIRED", shardId, describe(before), "RETIRED", this.actor);
			return new ShardRecord(shardId, before.region(), ShardState.RETIRED, before.jdbcUrl(), before.username(),
					version);
		});
		this.topology.removeShard(shardId);
		log.info("Shard '{}' retired at directory version {}; its pool is closed", shardId, record.version());
		return record;
	}

	/**
	 * Aligns this instance's topology with the registry: drops the pools of RETIRED shards and adds ACTIVE shards
	 * registered by other instances (with the {@link ShardPoolFactory}'s settings; no migration, the registering
	 * instance did it).
	 * @return the registry rows read
	 * @throws DirectoryUnavailableException if the directory cannot be read
	 */
	public List<ShardRecord> sync() {
		List<ShardRecord> records = list();
		try {
			syncReplicas();
		}
		catch (DirectoryUnavailableException ex) {
			log.warn("Cannot read the shard replicas: {}", ex.getMessage());
		}
		for (ShardRecord record : records) {
			if (record.state() == ShardState.RETIRED && this.topology.removeShard(record.shardId())) {
				log.info("Dropped the pool of retired shard '{}'", record.shardId());
			}
			else if (record.state() == ShardState.ACTIVE && !this.topology.contains(record.shardId())
					&& record.jdbcUrl() != null) {
				try {
					this.topology.find(record.shardId());
				}
				catch (RuntimeException ex) {
					log.warn("Cannot connect to registered shard '{}': {}", record.shardId(), ex.getMessage());
				}
			}
		}
		return records;
	}

	/**
	 * @return every registry row, sorted by shard id
	 * @throws DirectoryUnavailableException if the directory cannot be read
	 */
	public List<ShardRecord> list() {
		try (Connection c = this.directory.dataSource().getConnection();
				PreparedStatement ps = c
					.prepareStatement("SELECT " + COLUMNS + " FROM shard_registry ORDER BY shard_id");
				ResultSet rs = ps.executeQuery()) {
			List<ShardRecord> records = new ArrayList<>();
			while (rs.next()) {
				records.add(map(rs));
			}
			return records;
		}
		catch (SQLException ex) {
			throw new DirectoryUnavailableException(null, -1, ex);
		}
	}

	/**
	 * @param shardId a shard
	 * @return its registry row, or empty if it was never registered
	 * @throws DirectoryUnavailableException if the directory cannot be read
	 */
	public Optional<ShardRecord> find(String shardId) {
		try (Connection c = this.directory.dataSource().getConnection()) {
			return Optional.ofNullable(read(c, shardId, false));
		}
		catch (SQLException ex) {
			throw new DirectoryUnavailableException(null, -1, ex);
		}
	}

	/**
	 * Reads the ACTIVE shards in a directory transaction (placement's candidates).
	 * @param c the directory transaction
	 * @return the ACTIVE rows, sorted by shard id
	 * @throws SQLException on a directory error
	 */
	public static List<ShardRecord> active(Connection c) throws SQLException {
		try (PreparedStatement ps = c.prepareStatement(
				"SELECT " + COLUMNS + " FROM shard_registry WHERE state = 'ACTIVE' ORDER BY shard_id");
				ResultSet rs = ps.executeQuery()) {
			List<ShardRecord> records = new ArrayList<>();
			while (rs.next()) {
				records.add(map(rs));
			}
			return records;
		}
	}

	private Optional<DataSource> poolFor(String shardId) {
		Optional<ShardRecord> record;
		try {
			record = find(shardId);
		}
		catch (DirectoryUnavailableException ex) {
			return Optional.empty();
		}
		return record.filter(r -> r.state() == ShardState.ACTIVE && r.jdbcUrl() != null)
			.map(this.connector::create);
	}

	private void requireNotRetired(String shardId) {
		find(shardId).filter(r -> r.state() == ShardState.RETIRED).ifPresent(r -> {
			throw retired(shardId, r.version());
		});
	}

	private static ShardStateException retired(String shardId, long version) {
		return new ShardStateException("Shard '" + shardId + "' is RETIRED (directory version " + version
				+ "); a retired shard id is never used again", shardId, version);
	}

	private static String describe(ShardRecord r) {
		return r.state() + " region=" + r.region() + " url=" + r.jdbcUrl();
	}

	/**
	 * DELETED tenants of a shard whose purge is not recorded ({@code TENANT_PURGED} in {@code shard_directory_event},
	 * written by {@code TenantLifecycle.purge} after their deletion).
	 */
	private static List<String> unpurgedTenants(Connection c, String shardId) throws SQLException {
		try (PreparedStatement ps = c.prepareStatement("SELECT e.tenant_id FROM shard_directory_entry e WHERE "
				+ "e.shard_id = ? AND e.state = 'DELETED' AND NOT EXISTS (SELECT 1 FROM shard_directory_event v WHERE "
				+ "v.kind = 'TENANT_PURGED' AND v.subject = e.tenant_id AND v.from_value = e.shard_id AND "
				+ "v.version > e.version) ORDER BY e.tenant_id")) {
			ps.setString(1, shardId);
			try (ResultSet rs = ps.executeQuery()) {
				List<String> tenants = new ArrayList<>();
				while (rs.next()) {
					tenants.add(rs.getString(1));
				}
				return tenants;
			}
		}
	}

	private static long count(Connection c, String sql, String... parameters) throws SQLException {
		try (PreparedStatement ps = c.prepareStatement(sql)) {
			for (int i = 0; i < parameters.length; i++) {
				ps.setString(i + 1, parameters[i]);
			}
			try (ResultSet rs = ps.executeQuery()) {
				rs.next();
				return rs.getLong(1);
			}
		}
	}

	private static ShardRecord read(Connection c, String shardId, boolean forUpdate) throws SQLException {
		try (PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS + " FROM shard_registry WHERE shard_id = ?"
				+ (forUpdate ? " FOR UPDATE" : ""))) {
			ps.setString(1, shardId);
			try (ResultSet rs = ps.executeQuery()) {
				return rs.next() ? map(rs) : null;
			}
		}
	}

	private static ShardRecord map(ResultSet rs) throws SQLException {
		return new ShardRecord(rs.getString(1), rs.getString(2), ShardState.valueOf(rs.getString(3)),
				rs.getString(4), rs.getString(5), rs.getLong(6));
	}

	/**
	 * Records a read replica of a shard (or updates its URL and user name), so that other instances add it on their
	 * next {@link #sync()}. A topology change only: no directory entry changes.
	 * @param shardId the shard
	 * @param name the replica's name, unique within the shard
	 * @param jdbcUrl the JDBC URL other instances connect with
	 * @param username the database user, or {@code null}
	 * @return the row as it is now
	 * @throws DirectoryUnavailableException if the directory cannot be written
	 */
	public ReplicaRecord recordReplica(String shardId, String name, String jdbcUrl, String username) {
		ReplicaRecord existing = replicas().stream()
			.filter(r -> r.shardId().equals(shardId) && r.name().equals(name))
			.findFirst()
			.orElse(null);
		if (existing != null && Objects.equals(existing.jdbcUrl(), jdbcUrl)
				&& Objects.equals(existing.username(), username)) {
			return existing;
		}
		return this.directory.transaction((c, version) -> {
			// Update, else insert; both take the same parameters in the same order.
			for (String sql : List.of("UPDATE shard_replica SET jdbc_url = ?, username = ?, version = ?, "
					+ "updated_at = CURRENT_TIMESTAMP, updated_by = ? WHERE shard_id = ? AND name = ?",
					"INSERT INTO shard_replica (jdbc_url, username, version, updated_at, updated_by, shard_id, name) "
							+ "VALUES (?, ?, ?, CURRENT_TIMESTAMP, ?, ?, ?)")) {
				try (PreparedStatement ps = c.prepareStatement(sql)) {
					ps.setString(1, jdbcUrl);
					ps.setString(2, username);
					ps.setLong(3, version);
					ps.setString(4, this.actor);
					ps.setString(5, shardId);
					ps.setString(6, name);
					if (ps.executeUpdate() > 0) {
						break;
					}
				}
			}
			DirectoryEvents.record(c, version, "REPLICA_RECORDED", shardId,
					existing != null ? existing.name() + " url=" + existing.jdbcUrl() : null, name + " url=" + jdbcUrl,
					this.actor);
			return new ReplicaRecord(shardId, name, jdbcUrl, username, version);
		});
	}

	/**
	 * @return every recorded replica, sorted by shard id and name
	 * @throws DirectoryUnavailableException if the directory cannot be read
	 */
	public List<ReplicaRecord> replicas() {
		try (Connection c = this.directory.dataSource().getConnection();
				PreparedStatement ps = c.prepareStatement("SELECT shard_id, name, jdbc_url, username, version "
						+ "FROM shard_replica ORDER BY shard_id, name");
				ResultSet rs = ps.executeQuery()) {
			List<ReplicaRecord> records = new ArrayList<>();
			while (rs.next()) {
				records.add(new ReplicaRecord(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4),
						rs.getLong(5)));
			}
			return records;
		}
		catch (SQLException ex) {
			throw new DirectoryUnavailableException(null, -1, ex);
		}
	}

	/**
	 * Adds to this instance's topology the recorded replicas it lacks, of shards it has, with pools from the
	 * {@link ShardPoolFactory} (given the replica's URL and user name as a shard record of the replica's shard).
	 * @return the recorded replicas
	 * @throws DirectoryUnavailableException if the directory cannot be read
	 */
	public List<ReplicaRecord> syncReplicas() {
		List<ReplicaRecord> records = replicas();
		for (ReplicaRecord record : records) {
			if (!this.topology.contains(record.shardId()) || this.topology.replicas(record.shardId()).stream()
				.anyMatch(r -> r.name().equals(record.name()))) {
				continue;
			}
			try {
				this.topology.addReplica(record.shardId(), record.name(), this.connector.create(new ShardRecord(
						record.shardId(), null, ShardState.ACTIVE, record.jdbcUrl(), record.username(),
						record.version())), true);
				log.info("Added replica '{}' of shard '{}' recorded by another instance", record.name(),
						record.shardId());
			}
			catch (RuntimeException ex) {
				log.warn("Cannot add replica '{}' of shard '{}': {}", record.name(), record.shardId(), ex.getMessage());
			}
		}
		return records;
	}

}
