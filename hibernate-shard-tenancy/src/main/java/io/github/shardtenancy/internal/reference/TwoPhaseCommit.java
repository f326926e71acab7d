package io.github.shardtenancy.internal.reference;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;

import io.github.shardtenancy.DirectoryUnavailableException;
import io.github.shardtenancy.ReferenceDataBehindException;
import io.github.shardtenancy.ReferenceStatement;
import io.github.shardtenancy.ReferenceWriteException;
import io.github.shardtenancy.internal.directory.Directory;
import io.github.shardtenancy.internal.topology.Topology;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The shards' side of a reference write: each ACTIVE shard's transaction holding the write (prepared where the
 * shard's database keeps prepared transactions, open otherwise) until the directory's commit decides, then committed;
 * rolled back everywhere if one shard refuses or cannot be reached; and the prepared transactions an interrupted
 * writer left, finished as the directory's log decides. See {@link ReferenceReplication}. Thread-safe.
 */
final class TwoPhaseCommit {

	private static final Logger log = LoggerFactory.getLogger(TwoPhaseCommit.class);

	private final Directory directory;

	private final Topology topology;

	/** The shards known to be current, for tenant-free reads. */
	private final Supplier<Set<String>> current;

	TwoPhaseCommit(Directory directory, Topology topology, Supplier<Set<String>> current) {
		this.directory = directory;
		this.topology = topology;
		this.current = current;
	}

	/**
	 * The id of a shard's prepared transaction of the write recorded at {@code version}: the version, a hash of its
	 * statements and the shard, so that a prepared transaction left by an interrupted write is committed only if the
	 * log holds that very write at that version (a version whose directory transaction rolled back is given again).
	 */
	static String transactionId(long version, String encoded, String shardId) {
		long hash = 0xcbf29ce484222325L;
		for (byte b : encoded.getBytes(StandardCharsets.UTF_8)) {
			hash ^= b & 0xff;
			hash *= 0x100000001b3L;
		}
		// The shard's id too: a PostgreSQL server's prepared transaction ids are one namespace for all its databases.
		return PREPARED_PREFIX + version + ":" + Long.toHexString(hash) + ":" + shardId.replaceAll("[^A-Za-z0-9_]", "_");
	}

	/** The start of the id of every transaction a reference write prepares on a shard. */
	static final String PREPARED_PREFIX = "shard_tenancy_reference:";

	/**
	 * A shard's transaction holding a reference write, committed only once the write is recorded: prepared where
	 * the shard's database keeps prepared transactions, otherwise open on its connection.
	 */
	record ShardWrite(Topology.Shard shard, Connection connection, boolean prepared, String id) {
	}

	/**
	 * {@link #holdOnce} once more, with the pool's idle connections evicted first, if the shard could not be reached: a
	 * shard that came back leaves connections in the pool that its restart broke. A shard still unreachable is left
	 * out of tenant-free reads until a write, {@link ReferenceReplication#repair()} or
	 * {@link ReferenceReplication#verify()} finds it current again.
	 */
	ShardWrite hold(Connection directoryTransaction, String shardId, long latest, long version,
			List<ReferenceStatement> statements, String encoded) {
		String id = transactionId(version, encoded, shardId);
		try {
			return holdOnce(directoryTransaction, shardId, latest, version, statements, id);
		}
		catch (ReferenceWriteException ex) {
			Topology.Shard shard = this.topology.find(shardId).orElse(null);
			if (shard == null || !(ex.getCause() instanceof SQLException failure) || !isUnreachable(failure)
					|| !evict(shard)) {
				throw ex;
			}
			try {
				return holdOnce(directoryTransaction, shardId, latest, version, statements, id);
			}
			catch (ReferenceWriteException again) {
				if (again.getCause() instanceof SQLException failure2 && isUnreachable(failure2)) {
					this.current.get().remove(shardId);
				}
				throw again;
			}
		}
	}

	/** Evicts the idle connections of a shard's pool; {@code false} if it is not a live HikariCP pool. */
	static boolean evict(Topology.Shard shard) {
		if (!(shard.dataSource() instanceof com.zaxxer.hikari.HikariDataSource pool) || pool.isClosed()
				|| pool.getHikariPoolMXBean() == null) {
			return false;
		}
		pool.getHikariPoolMXBean().softEvictConnections();
		return true;
	}

	/**
	 * On one target shard, inside the write's directory transaction: finishes what an interrupted write left
	 * prepared, locks the shard's version row, replays the recorded writes it misses, runs the statements, sets the
	 * version and prepares (or keeps open) the transaction.
	 * @throws ReferenceWriteException if the shard cannot be reached or refuses: the caller rolls back every shard
	 */
	private ShardWrite holdOnce(Connection directoryTransaction, String shardId, long latest, long version,
			List<ReferenceStatement> statements, String id) {
		if (this.topology.isPending(shardId)) {
			throw unreachable(shardId, Topology.notReachedYet(shardId));
		}
		Topology.Shard shard = this.topology.find(shardId).orElseThrow(() -> new ReferenceWriteException(
				"Reference write refused, nothing recorded or committed on any shard: shard '" + shardId
						+ "' is ACTIVE in the directory but not in this instance's topology; call "
						+ "TenantAdmin.syncShards() and write again", shardId, null));
		Connection s;
		try {
			s = shard.dataSource().getConnection();
		}
		catch (SQLException ex) {
			throw unreachable(shardId, ex);
		}
		try {
			resolve(directoryTransaction, shard, s);
			s.setAutoCommit(false);
			long at = ReferenceReplication.shardVersion(s, true);
			if (at < latest) {
				for (Map.Entry<Long, List<ReferenceStatement>> entry : ReferenceReplication
					.entriesOn(directoryTransaction, at, latest)
					.entrySet()) {
					try {
						ReferenceReplication.run(s, entry.getValue());
					}
					catch (SQLException ex) {
						if (isUnreachable(ex)) {
							throw ex;
						}
						throw new ReferenceWriteException("Reference write refused, nothing recorded or committed on "
								+ "any shard: shard '" + shardId + "' misses the recorded write at directory version "
								+ entry.getKey() + " and refuses it (" + ex.getMessage() + "); fix the rows the "
								+ "reason names on that shard, run ShardTenancy.referenceTables().repair(), then "
								+ "write again", shardId, ex);
					}
				}
			}
			try {
				ReferenceReplication.run(s, statements);
			}
			catch (SQLException ex) {
				if (isUnreachable(ex)) {
					throw ex;
				}
				throw refused(shardId, ex);
			}
			try (PreparedStatement ps = s.prepareStatement(
					"UPDATE shard_reference_version SET version = ?, updated_at = CURRENT_TIMESTAMP WHERE id = 1")) {
				ps.setLong(1, version);
				ps.executeUpdate();
			}
			boolean prepared;
			try {
				prepared = shard.dialect().prepare(s, id);
			}
			catch (SQLException ex) {
				if (isUnreachable(ex)) {
					throw ex;
				}
				throw refused(shardId, ex); // a deferred constraint, checked now
			}
			return new ShardWrite(shard, s, prepared, id);
		}
		catch (SQLException | RuntimeException ex) {
			rollbackQuietly(s);
			closeQuietly(s);
			if (ex instanceof ReferenceWriteException refusal) {
				throw refusal;
			}
			if (ex instanceof SQLException failure) {
				throw unreachable(shardId, failure);
			}
			throw (RuntimeException) ex;
		}
	}

	private static ReferenceWriteException refused(String shardId, SQLException ex) {
		return new ReferenceWriteException("Reference write refused as a whole, nothing recorded or committed on any "
				+ "shard: shard '" + shardId + "' refuses it (" + ex.getMessage() + "); the write must hold on every "
				+ "ACTIVE shard: change it, or the rows the reason names, and write again", shardId, ex);
	}

	private static ReferenceWriteException unreachable(String shardId, SQLException ex) {
		return new ReferenceWriteException("Reference write refused, nothing recorded or committed on any shard: "
				+ "shard '" + shardId + "' cannot be reached (" + ex.getMessage() + "); a reference write needs every "
				+ "ACTIVE shard: write again once it is back, or retire the shard", shardId, ex);
	}

	/**
	 * Whether a failure is the connection's (the shard is down or its connection broke) rather than the database
	 * refusing a statement: SQLSTATE class 08 (connection exception, SQL standard), 57P (PostgreSQL's operator
	 * intervention: shutdown, crash), or a JDBC connection exception type.
	 */
	static boolean isUnreachable(SQLException ex) {
		for (Throwable t = ex; t != null; t = t.getCause()) {
			if (t instanceof java.sql.SQLTransientConnectionException
					|| t instanceof java.sql.SQLNonTransientConnectionException
					|| t instanceof java.sql.SQLRecoverableException) {
				return true;
			}
			if (t instanceof SQLException sql && sql.getSQLState() != null
					&& (sql.getSQLState().startsWith("08") || sql.getSQLState().startsWith("57P"))) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Finishes, on one shard, the transactions that interrupted writes left prepared: committed if the log holds the
	 * write they hold, rolled back otherwise. Called only while holding the directory's write lock, so that no write
	 * is in flight: every prepared transaction found is one whose directory transaction ended.
	 */
	private void resolve(Connection directoryTransaction, Topology.Shard shard, Connection s) throws SQLException {
		for (String id : shard.dialect().preparedIds(s, PREPARED_PREFIX)) {
			boolean commit = logged(directoryTransaction, id, shard.id());
			if (shard.dialect().finishPrepared(s, id, commit)) {
				log.warn("Shard '{}': {} the reference write an interrupted writer left prepared ({})", shard.id(),
						commit ? "committed" : "rolled back", id);
			}
		}
	}

	/** Whether the log holds the write a prepared transaction id of a shard names. */
	private static boolean logged(Connection directory, String id, String shardId) throws SQLException {
		String[] parts = id.substring(PREPARED_PREFIX.length()).split(":", 2);
		long version;
		try {
			version = Long.parseLong(parts[0]);
		}
		catch (NumberFormatException ex) {
			return false;
		}
		try (PreparedStatement ps = directory.prepareStatement(
				"SELECT statements FROM shard_reference_log WHERE version = ?")) {
			ps.setLong(1, version);
			try (ResultSet rs = ps.executeQuery()) {
				return rs.next() && transactionId(version, rs.getString(1), shardId).equals(id);
			}
		}
	}

	/**
	 * Commits the held shard transactions of a recorded write. A shard whose commit fails is behind: a prepared
	 * transaction stays prepared and the next write or {@link ReferenceReplication#repair()} commits it; an open one
	 * was rolled back by its database and is replayed from the log.
	 * @throws ReferenceDataBehindException if a shard does not have the write now
	 */
	void finish(List<ShardWrite> held, long version) {
		Map<String, String> unreachable = new TreeMap<>();
		List<Throwable> failures = new ArrayList<>();
		for (ShardWrite write : held) {
			try {
				if (write.prepared()) {
					write.shard().dialect().finishPrepared(write.connection(), write.id(), true);
				}
				else {
					write.connection().commit();
				}
				this.current.get().add(write.shard().id());
			}
			catch (SQLException | RuntimeException ex) {
				this.current.get().remove(write.shard().id());
				log.warn("Reference write at directory version {} not committed on shard '{}' yet: {}", version,
						write.shard().id(), ex.getMessage());
				unreachable.put(write.shard().id(), String.valueOf(ex.getMessage()));
				failures.add(ex);
			}
			finally {
				closeQuietly(write.connection());
			}
		}
		if (!unreachable.isEmpty()) {
			throw new ReferenceDataBehindException(version, unreachable, Map.of(), failures);
		}
	}

	/**
	 * Whether a write whose directory transaction failed is recorded: {@code false} if the transaction rolled back,
	 * otherwise (its commit failed without telling) what the directory answers, {@code null} if it cannot.
	 */
	@Nullable Boolean recorded(RuntimeException failure, long version, String encoded) {
		if (version < 0 || !(failure instanceof DirectoryUnavailableException)) {
			return Boolean.FALSE;
		}
		try (Connection c = this.directory.dataSource().getConnection()) {
			return logged(c, transactionId(version, encoded, ""), "");
		}
		catch (SQLException | RuntimeException ex) {
			failure.addSuppressed(ex);
			return null;
		}
	}

	/**
	 * Rolls back the held shard transactions of a write that is not recorded; with {@code keepPrepared} (the
	 * directory cannot tell), prepared transactions stay prepared for the next write or
	 * {@link ReferenceReplication#repair()} to finish.
	 */
	static void abandon(List<ShardWrite> held, boolean keepPrepared, RuntimeException failure) {
		for (ShardWrite write : held) {
			try {
				if (write.prepared() && keepPrepared) {
					log.warn("Reference write: the directory cannot tell whether it is recorded; shard '{}' keeps it "
							+ "prepared ({}) until the next reference write or repair() finishes it",
							write.shard().id(), write.id());
				}
				else if (write.prepared()) {
					write.shard().dialect().finishPrepared(write.connection(), write.id(), false);
				}
				else {
					write.connection().rollback();
				}
			}
			catch (SQLException | RuntimeException ex) {
				failure.addSuppressed(ex);
			}
			finally {
				closeQuietly(write.connection());
			}
		}
	}

	private static void rollbackQuietly(Connection c) {
		try {
			if (!c.getAutoCommit()) {
				c.rollback();
			}
		}
		catch (SQLException ex) {
			log.debug("Rollback of a reference write's shard transaction failed: {}", ex.getMessage());
		}
	}

	private static void closeQuietly(Connection c) {
		try {
			c.close();
		}
		catch (SQLException ex) {
			log.debug("Closing a reference write's shard connection failed: {}", ex.getMessage());
		}
	}

	/**
	 * Finishes the transactions interrupted writes left prepared on the shards of the topology, inside a directory
	 * transaction (whose lock no write in flight holds then); nothing, not even the directory lock, when there are
	 * none.
	 */
	void resolveAll() {
		List<Topology.Shard> withPrepared = new ArrayList<>();
		for (String shardId : this.topology.shardIds()) {
			Topology.Shard shard = this.topology.find(shardId).orElse(null);
			if (shard == null) {
				continue;
			}
			try (Connection s = shard.dataSource().getConnection()) {
				if (!shard.dialect().preparedIds(s, PREPARED_PREFIX).isEmpty()) {
					withPrepared.add(shard);
				}
			}
			catch (SQLException | RuntimeException ex) {
				log.debug("Shard '{}' not read for prepared reference writes: {}", shardId, ex.getMessage());
			}
		}
		if (withPrepared.isEmpty()) {
			return;
		}
		this.directory.transaction((c, v) -> {
			for (Topology.Shard shard : withPrepared) {
				try (Connection s = shard.dataSource().getConnection()) {
					resolve(c, shard, s);
				}
			}
			return null;
		});
	}

}
