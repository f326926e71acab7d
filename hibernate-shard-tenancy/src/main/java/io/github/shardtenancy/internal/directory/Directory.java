package io.github.shardtenancy.internal.directory;

import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.DirectoryHistoryRecord;
import io.github.shardtenancy.TenantState;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Consumer;

import javax.sql.DataSource;

import io.github.shardtenancy.DirectoryConflictException;
import io.github.shardtenancy.DirectoryUnavailableException;
import io.github.shardtenancy.InvalidDirectoryEntryException;
import io.github.shardtenancy.NestedDirectoryWriteException;
import io.github.shardtenancy.ShardTenancyException;
import io.github.shardtenancy.TenantAlreadyExistsException;
import io.github.shardtenancy.TenantIds;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The directory: the authoritative mapping of tenants to logical shards, kept in a database of its own. Reads never
 * cache; the {@link io.github.shardtenancy.internal.routing.Router} does that.
 *
 * <p>Tables (created by the {@code directory} Liquibase changelog): {@code shard_directory_entry} (one row per tenant),
 * {@code shard_directory_version} (one row, the global directory version) and {@code shard_directory_history}. Every
 * write runs in one directory transaction that bumps the global version (the row lock serialises writers, so
 * versions commit in order), bumps the entry's epoch, stamps the entry with the new version and appends a history
 * row. On PostgreSQL a trigger on the version row sends a {@code NOTIFY} in the same transaction.
 *
 * <p>Thread-safe: each call borrows its own connection from the directory pool.
 *
 * <p>Errors: a failure to reach or query the directory raises {@link DirectoryUnavailableException}; a write whose
 * precondition does not hold raises {@link DirectoryConflictException} and writes nothing. A row that breaks the
 * schema's rules (unknown state, epoch below 1) raises {@link InvalidDirectoryEntryException} naming the row.
 */
public class Directory {

	private static final Logger log = LoggerFactory.getLogger(Directory.class);

	private static final String COLUMNS = "tenant_id, shard_id, state, target_shard_id, epoch, version";

	/**
	 * Rows per round trip of a {@link #snapshot(Consumer) snapshot}: a cold start of a million entries takes a hundred
	 * round trips, and holds at most this many rows (about a megabyte) in the driver at once.
	 */
	public static final int SNAPSHOT_FETCH_SIZE = 10_000;

	/** Set while this thread has a directory write transaction open. */
	private static final ThreadLocal<Boolean> WRITING = new ThreadLocal<>();

	/** More distinct shard ids than this are not deduplicated (a bound on the map below, not a limit on shards). */
	private static final int MAX_CANONICAL_SHARD_IDS = 10_000;

	private final DataSource dataSource;

	private final ConcurrentMap<String, String> shardIds = new ConcurrentHashMap<>();

	/** @param dataSource a pool on the directory database, never {@code null} */
	public Directory(DataSource dataSource) {
		this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
	}

	/** @return the pool this directory reads from */
	public DataSource dataSource() {
		return this.dataSource;
	}

	/**
	 * Reads one entry.
	 * @param tenantId the tenant, validated
	 * @return the entry, or empty if the directory has none
	 * @throws InvalidDirectoryEntryException if the tenant's row breaks the schema's rules (named in the message)
	 * @throws DirectoryUnavailableException if the directory cannot be read
	 */
	public Optional<DirectoryEntry> find(String tenantId) {
		TenantIds.requireValid(tenantId);
		try (Connection c = this.dataSource.getConnection();
				PreparedStatement ps = c.prepareStatement(
						"SELECT " + COLUMNS + " FROM shard_directory_entry WHERE tenant_id = ?")) {
			ps.setString(1, tenantId);
			try (ResultSet rs = ps.executeQuery()) {
				return rs.next() ? Optional.of(map(rs)) : Optional.empty();
			}
		}
		catch (SQLException ex) {
			throw new DirectoryUnavailableException(tenantId, -1, ex);
		}
	}

	/**
	 * @return the global directory version (0 for a directory that was never written)
	 * @throws DirectoryUnavailableException if the directory cannot be read
	 */
	public long currentVersion() {
		try (Connection c = this.dataSource.getConnection()) {
			return readVersion(c);
		}
		catch (SQLException ex) {
			throw new DirectoryUnavailableException(null, -1, ex);
		}
	}

	/**
	 * Reads the entries changed after a version.
	 * @param sinceVersion the exclusive lower bound, usually the router's cached version
	 * @return the changes, complete up to the returned {@code toVersion}
	 * @throws DirectoryUnavailableException if the directory cannot be read
	 */
	public DirectoryChanges changesSince(long sinceVersion) {
		try (Connection c = this.dataSource.getConnection()) {
			long to = readVersion(c);
			List<DirectoryEntry> entries = new ArrayList<>();
			if (to > sinceVersion) {
				try (PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS
						+ " FROM shard_directory_entry WHERE version > ? AND version <= ? ORDER BY version")) {
					ps.setLong(1, sinceVersion);
					ps.setLong(2, to);
					try (ResultSet rs = ps.executeQuery()) {
						while (rs.next()) {
							DirectoryEntry entry = mapOrSkip(rs);
							if (entry != null) {
								entries.add(entry);
							}
						}
					}
				}
			}
			return new DirectoryChanges(sinceVersion, Math.max(to, sinceVersion), entries);
		}
		catch (SQLException ex) {
			throw new DirectoryUnavailableException(null, sinceVersion, ex);
		}
	}

	/**
	 * Streams every entry in one query (a snapshot for a cold start), without holding them all in memory.
	 * @param consumer receives each valid entry; rows that break the schema's rules are logged and skipped
	 * @return the directory version the snapshot is complete up to: every change at or below it is reflected
	 * @throws DirectoryUnavailableException if the directory cannot be read
	 */
	public long snapshot(Consumer<DirectoryEntry> consumer) {
		try (Connection c = this.dataSource.getConnection()) {
			boolean autoCommit = c.getAutoCommit();
			c.setAutoCommit(false); // PostgreSQL streams with a fetch size only inside a transaction
			try {
				long version = readVersion(c);
				try (PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS + " FROM shard_directory_entry")) {
					ps.setFetchSize(SNAPSHOT_FETCH_SIZE);
					try (ResultSet rs = ps.executeQuery()) {
						while (rs.next()) {
							DirectoryEntry entry = mapOrSkip(rs);
							if (entry != null) {
								consumer.accept(entry);
							}
						}
					}
				}
				c.commit();
				return version;
			}
			finally {
				c.setAutoCommit(autoCommit);
			}
		}
		catch (SQLException ex) {
			throw new DirectoryUnavailableException(null, -1, ex);
		}
	}

	/**
	 * Creates an entry, ACTIVE on the given shard.
	 * @param tenantId the tenant, validated
	 * @param shardId the owner shard
	 * @param actor who creates it, recorded in the history
	 * @return the new entry (epoch 1)
	 * @throws TenantAlreadyExistsException if the tenant already has an entry (a {@link DirectoryConflictException})
	 * @throws DirectoryUnavailableException if the directory cannot be written
	 * @throws NestedDirectoryWriteException if this thread already has a directory write transaction open
	 */
	public DirectoryEntry create(String tenantId, String shardId, String actor) {
		Objects.requireNonNull(shardId, "shardId");
		return create(tenantId, actor, (transaction, version, tenant) -> shardId);
	}

	/**
	 * Chooses the owner of a new tenant inside the directory transaction that creates its entry, so that there is no
	 * window with a tenant and no owner, and concurrent creations see each other's entries: the transaction holds the
	 * directory version row lock, which serialises every directory writer.
	 */
	@FunctionalInterface
	public interface ShardChoice {

		/**
		 * @param transaction the directory transaction's connection (read what is needed; do not commit or close it)
		 * @param newVersion the directory version the entry will carry
		 * @param tenantId the new tenant
		 * @return the owner shard, never {@code null}
		 * @throws SQLException on a directory error (the creation then fails with
		 * {@link DirectoryUnavailableException})
		 */
		String choose(Connection transaction, long newVersion, String tenantId) throws SQLException;

	}

	/**
	 * Creates an entry, ACTIVE on the shard a {@link ShardChoice} picks inside the same directory transaction.
	 * @param tenantId the tenant, validated
	 * @param actor who creates it, recorded in the history
	 * @param choice picks the owner; a {@link ShardTenancyException} it throws aborts the creation and propagates
	 * @return the new entry (epoch 1)
	 * @throws TenantAlreadyExistsException if the tenant already has an entry, also when another instance created it
	 * at the same moment (a {@link DirectoryConflictException})
	 * @throws DirectoryUnavailableException if the directory cannot be written
	 * @throws NestedDirectoryWriteException if this thread already has a directory write transaction open
	 */
	public DirectoryEntry create(String tenantId, String actor, ShardChoice choice) {
		TenantIds.requireValid(tenantId);
		Objects.requireNonNull(choice, "choice");
		return write(tenantId, actor, (c, current, version) -> {
			if (current != null) {
				throw new TenantAlreadyExistsException(tenantId, current.shardId(), current.version());
			}
			String shardId = choice.choose(c, version, tenantId);
			return new DirectoryEntry(tenantId, shardId, TenantState.ACTIVE, null, 1, version);
		});
	}

	/**
	 * Work run in a directory write transaction; see {@link #transaction(DirectoryWork)}.
	 * @param <T> its result
	 */
	@FunctionalInterface
	public interface DirectoryWork<T> {

		/**
		 * @param transaction the transaction's connection (do not commit or close it)
		 * @param newVersion the directory version this transaction produces
		 * @return the result
		 * @throws SQLException on a directory error (the transaction is rolled back)
		 */
		T run(Connection transaction, long newVersion) throws SQLException;

	}

	/**
	 * Runs work in one directory write transaction that bumps the global directory version first (taking the row lock
	 * that serialises every directory writer) and commits at the end, or rolls back if the work throws. Used for the
	 * directory's own tables beyond entries (shard registry, slots, overrides, pins). On PostgreSQL the version bump
	 * notifies listeners when the transaction commits.
	 * @param work the work, never {@code null}
	 * @param <T> its result
	 * @return what the work returned
	 * @throws NestedDirectoryWriteException if this thread already has a directory write transaction open
	 * @throws DirectoryUnavailableException if the directory cannot be written; a {@link RuntimeException} the work
	 * throws propagates as it is
	 */
	public <T> T transaction(DirectoryWork<T> work) {
		Objects.requireNonNull(work, "work");
		enterWrite(null);
		try (Connection c = this.dataSource.getConnection()) {
			boolean autoCommit = c.getAutoCommit();
			c.setAutoCommit(false);
			try {
				T result = work.run(c, bumpVersion(c));
				c.commit();
				return result;
			}
			catch (SQLException | RuntimeException ex) {
				c.rollback();
				throw ex;
			}
			finally {
				c.setAutoCommit(autoCommit);
			}
		}
		catch (SQLException ex) {
			throw new DirectoryUnavailableException(null, -1, ex);
		}
		finally {
			WRITING.remove();
		}
	}

	/**
	 * Changes an entry, provided it is still at the epoch the caller read.
	 * @param tenantId the tenant
	 * @param expectedEpoch the epoch the caller's decision was based on
	 * @param shardId the new owner
	 * @param state the new state
	 * @param targetShardId the new move target, or {@code null}
	 * @param actor who changes it, recorded in the history
	 * @return the entry as written (epoch + 1, new version)
	 * @throws DirectoryConflictException if the entry is missing or its epoch is not {@code expectedEpoch}
	 * @throws DirectoryUnavailableException if the directory cannot be written
	 * @throws NestedDirectoryWriteException if this thread already has a directory write transaction open
	 */
	public DirectoryEntry update(String tenantId, long expectedEpoch, String shardId, TenantState state,
			String targetShardId, String actor) {
		return write(tenantId, actor, (c, current, version) -> {
			if (current == null) {
				throw new DirectoryConflictException("Tenant '" + tenantId + "' has no directory entry", tenantId,
						null, -1);
			}
			if (current.epoch() != expectedEpoch) {
				throw new DirectoryConflictException("Tenant '" + tenantId + "' changed concurrently: expected epoch "
						+ expectedEpoch + ", found " + current.epoch() + " (" + current.state() + " on shard '"
						+ current.shardId() + "', directory version " + current.version() + ")", tenantId,
						current.shardId(), current.version());
			}
			return new DirectoryEntry(tenantId, shardId, state, targetShardId, current.epoch() + 1, version);
		});
	}

	/**
	 * Reads the history of one tenant, oldest first.
	 * @param tenantId the tenant
	 * @return every recorded change, possibly empty
	 * @throws DirectoryUnavailableException if the directory cannot be read
	 */
	public List<DirectoryHistoryRecord> history(String tenantId) {
		TenantIds.requireValid(tenantId);
		try (Connection c = this.dataSource.getConnection();
				PreparedStatement ps = c.prepareStatement("SELECT tenant_id, version, epoch, from_shard_id, "
						+ "to_shard_id, from_state, to_state, target_shard_id, changed_at, changed_by "
						+ "FROM shard_directory_history WHERE tenant_id = ? ORDER BY version")) {
			ps.setString(1, tenantId);
			List<DirectoryHistoryRecord> records = new ArrayList<>();
			try (ResultSet rs = ps.executeQuery()) {
				while (rs.next()) {
					String fromState = rs.getString(6);
					records.add(new DirectoryHistoryRecord(rs.getString(1), rs.getLong(2), rs.getLong(3),
							rs.getString(4), rs.getString(5), fromState != null ? TenantState.valueOf(fromState) : null,
							TenantState.valueOf(rs.getString(7)), rs.getString(8), rs.getTimestamp(9).toInstant(),
							rs.getString(10)));
				}
			}
			return records;
		}
		catch (SQLException ex) {
			throw new DirectoryUnavailableException(tenantId, -1, ex);
		}
	}

	private interface Change {

		DirectoryEntry apply(Connection c, DirectoryEntry current, long newVersion) throws SQLException;

	}

	private DirectoryEntry write(String tenantId, String actor, Change change) {
		enterWrite(tenantId);
		try (Connection c = this.dataSource.getConnection()) {
			boolean autoCommit = c.getAutoCommit();
			c.setAutoCommit(false);
			try {
				long version = bumpVersion(c);
				DirectoryEntry current;
				try (PreparedStatement ps = c.prepareStatement(
						"SELECT " + COLUMNS + " FROM shard_directory_entry WHERE tenant_id = ? FOR UPDATE")) {
					ps.setString(1, tenantId);
					try (ResultSet rs = ps.executeQuery()) {
						current = rs.next() ? map(rs) : null;
					}
				}
				DirectoryEntry next = change.apply(c, current, version);
				String sql = current == null
						? "INSERT INTO shard_directory_entry (shard_id, state, target_shard_id, epoch, version, "
								+ "updated_by, updated_at, tenant_id) VALUES (?, ?, ?, ?, ?, ?, CURRENT_TIMESTAMP, ?)"
						: "UPDATE shard_directory_entry SET shard_id = ?, state = ?, target_shard_id = ?, epoch = ?, "
								+ "version = ?, updated_by = ?, updated_at = CURRENT_TIMESTAMP WHERE tenant_id = ?";
				try (PreparedStatement ps = c.prepareStatement(sql)) {
					ps.setString(1, next.shardId());
					ps.setString(2, next.state().name());
					ps.setString(3, next.targetShardId());
					ps.setLong(4, next.epoch());
					ps.setLong(5, next.version());
					ps.setString(6, actor);
					ps.setString(7, tenantId);
					ps.executeUpdate();
				}
				try (PreparedStatement ps = c.prepareStatement("INSERT INTO shard_directory_history (tenant_id, "
						+ "version, epoch, from_shard_id, to_shard_id, from_state, to_state, target_shard_id, "
						+ "changed_at, changed_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, CURRENT_TIMESTAMP, ?)")) {
					ps.setString(1, tenantId);
					ps.setLong(2, next.version());
					ps.setLong(3, next.epoch());
					ps.setString(4, current != null ? current.shardId() : null);
					ps.setString(5, next.shardId());
					ps.setString(6, current != null ? current.state().name() : null);
					ps.setString(7, next.state().name());
					ps.setString(8, next.targetShardId());
					ps.setString(9, actor);
					ps.executeUpdate();
				}
				c.commit();
				log.debug("Directory version {}: tenant '{}' -> {}", version, tenantId, next);
				return next;
			}
			catch (SQLException | RuntimeException ex) {
				c.rollback();
				if (ex instanceof SQLException sql && isUniqueViolation(sql)) {
					// only the entry insert can collide: another instance created the same tenant meanwhile
					throw new TenantAlreadyExistsException(tenantId, null, -1);
				}
				throw ex;
			}
			finally {
				c.setAutoCommit(autoCommit);
			}
		}
		catch (SQLException ex) {
			throw new DirectoryUnavailableException(tenantId, -1, ex);
		}
		finally {
			WRITING.remove();
		}
	}

	/**
	 * Marks this thread as having a directory write transaction open, refusing a second one: both would need the
	 * version row lock, so the inner one would wait for its own thread forever.
	 */
	private static void enterWrite(String tenantId) {
		if (WRITING.get() != null) {
			throw new NestedDirectoryWriteException(tenantId);
		}
		WRITING.set(Boolean.TRUE);
	}

	private static boolean isUniqueViolation(SQLException ex) {
		return "23505".equals(ex.getSQLState()) || ex instanceof java.sql.SQLIntegrityConstraintViolationException;
	}

	private static long bumpVersion(Connection c) throws SQLException {
		try (PreparedStatement bump = c.prepareStatement(
				"UPDATE shard_directory_version SET version = version + 1, updated_at = CURRENT_TIMESTAMP WHERE id = 1")) {
			if (bump.executeUpdate() != 1) {
				throw new SQLException("shard_directory_version has no row with id 1: the directory schema was not "
						+ "migrated");
			}
		}
		return readVersion(c);
	}

	private static long readVersion(Connection c) throws SQLException {
		try (PreparedStatement ps = c.prepareStatement("SELECT version FROM shard_directory_version WHERE id = 1");
				ResultSet rs = ps.executeQuery()) {
			return rs.next() ? rs.getLong(1) : 0;
		}
	}

	/**
	 * The one instance of a shard id string that entries read by this directory share, so that a million cached
	 * entries on eight shards hold eight shard id strings rather than a million (about 48 bytes each).
	 */
	private String canonicalShardId(String shardId) {
		if (shardId == null) {
			return null;
		}
		String known = this.shardIds.get(shardId);
		if (known != null) {
			return known;
		}
		if (this.shardIds.size() >= MAX_CANONICAL_SHARD_IDS) {
			return shardId;
		}
		known = this.shardIds.putIfAbsent(shardId, shardId);
		return known != null ? known : shardId;
	}

	private DirectoryEntry mapOrSkip(ResultSet rs) throws SQLException {
		try {
			return map(rs);
		}
		catch (ShardTenancyException ex) {
			log.error("Skipping directory row: {}", ex.getMessage());
			return null;
		}
	}

	private DirectoryEntry map(ResultSet rs) throws SQLException {
		String tenant = rs.getString(1);
		String shard = canonicalShardId(rs.getString(2));
		String state = rs.getString(3);
		long epoch = rs.getLong(5);
		long version = rs.getLong(6);
		try {
			if (!TenantIds.isValid(tenant)) {
				throw new IllegalArgumentException("the tenant id breaks the tenant id rule");
			}
			return new DirectoryEntry(tenant, shard, TenantState.valueOf(state), canonicalShardId(rs.getString(4)),
					epoch, version);
		}
		catch (IllegalArgumentException | NullPointerException ex) {
			throw new InvalidDirectoryEntryException("Invalid directory row for tenant '" + tenant + "' (shard '" + shard
					+ "', state '" + state + "', epoch " + epoch + ", version " + version + "): " + ex.getMessage(),
					tenant, shard, version, ex);
		}
	}

}
