package io.github.shardtenancy.internal.reference;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import io.github.shardtenancy.DirectoryUnavailableException;
import io.github.shardtenancy.ReferenceDataBehindException;
import io.github.shardtenancy.ReferenceDataReport;
import io.github.shardtenancy.ReferenceStatement;
import io.github.shardtenancy.ReferenceTables;
import io.github.shardtenancy.ReferenceWriteException;
import io.github.shardtenancy.ShardRecord;
import io.github.shardtenancy.ShardTenancyConfigurationException;
import io.github.shardtenancy.internal.directory.Directory;
import io.github.shardtenancy.internal.hibernate.ShardMultiTenantConnectionProvider;
import io.github.shardtenancy.internal.topology.ShardRegistry;
import io.github.shardtenancy.internal.topology.Topology;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reference data kept identical on every ACTIVE shard by a replicated, versioned statement log.
 *
 * <p>The directory's {@code shard_reference_log} holds every write, stamped with the directory version of the
 * directory transaction that recorded it (that transaction takes the row lock that serialises every directory
 * writer, so versions are unique and in commit order). Each shard's {@code shard_reference_version} holds the version
 * of the last write applied to it. Bringing a shard to a version ({@link #catchUp}) is one shard transaction: lock
 * the version row, replay the log entries above it in version order, update it; so each write is applied exactly
 * once on each shard whatever runs concurrently, and an interrupted catch-up leaves the shard where it was.
 *
 * <p>Why a statement log rather than copying tables from a shard that is current: a shard that missed a write must
 * get it even when every shard that has it is down or gone, and the directory is the one database every instance
 * already depends on. Statements must be deterministic (see {@link ReferenceStatement}).
 *
 * <p>A write commits on every ACTIVE shard or on none. Inside the directory transaction that records it (whose lock
 * serialises writes), each shard's transaction locks its version row, replays what it misses, runs the statements and
 * is prepared (two-phase commit, where the shard's database keeps prepared transactions: PostgreSQL with
 * {@code max_prepared_transactions} above 0) or kept open; a shard that refuses or cannot be reached rolls every
 * shard back, with nothing recorded. The directory's commit is the decision; the shards commit after it. A shard
 * whose commit then fails is behind and gets the write from the log (a prepared transaction is committed as it
 * stands); a prepared transaction an interrupted writer left is finished by the next write or {@link #repair()},
 * committed if the log holds its write, rolled back otherwise ({@link TwoPhaseCommit}).
 *
 * <p>Tenant-free reads go to the shards this instance knows to be current ({@link #readShards()}). Thread-safe.
 */
public final class ReferenceReplication implements ReferenceTables, ShardMultiTenantConnectionProvider.ReferenceReads {

	private static final Logger log = LoggerFactory.getLogger(ReferenceReplication.class);

	/** The size of {@code shard_reference_log.statements}. */
	private static final int MAX_ENCODED = 10_000_000;

	private static final java.util.regex.Pattern IDENTIFIER = java.util.regex.Pattern
		.compile("[A-Za-z_][A-Za-z0-9_]{0,62}(\\.[A-Za-z_][A-Za-z0-9_]{0,62})?");

	private final Directory directory;

	private final Topology topology;

	private final Supplier<? extends Collection<String>> declared;

	private final String actor;

	private volatile @Nullable Set<String> tables;

	/** The shards this instance knows to be at the latest version; {@code null} until first read. */
	private volatile @Nullable Set<String> current;

	private final AtomicInteger next = new AtomicInteger();

	private final TwoPhaseCommit commit;

	/**
	 * @param directory the directory (its database holds the log)
	 * @param topology this instance's shards
	 * @param tables the reference tables, asked once on first use
	 * @param actor who writes, recorded in the log
	 */
	public ReferenceReplication(Directory directory, Topology topology, Supplier<? extends Collection<String>> tables,
			String actor) {
		this.directory = Objects.requireNonNull(directory, "directory");
		this.topology = Objects.requireNonNull(topology, "topology");
		this.declared = Objects.requireNonNull(tables, "tables");
		this.actor = Objects.requireNonNull(actor, "actor");
		this.commit = new TwoPhaseCommit(directory, topology, this::knownCurrent);
	}

	@Override
	public Set<String> tables() {
		Set<String> known = this.tables;
		if (known == null) {
			Set<String> names = new TreeSet<>();
			for (String table : Objects.requireNonNull(this.declared.get(), "reference tables")) {
				if (table == null || !IDENTIFIER.matcher(table).matches()) {
					throw new ShardTenancyConfigurationException("shard-tenancy.reference-tables", "Reference table '"
							+ table + "' (shard-tenancy.reference-tables or ShardTenancyBuilder.referenceTables) is not a "
							+ "plain SQL identifier, optionally schema-qualified: name the table as in the database, for "
							+ "example lookup_type or ref.lookup_type");
				}
				names.add(table.toLowerCase(Locale.ROOT));
			}
			known = Set.copyOf(names);
			this.tables = known;
		}
		return known;
	}

	@Override
	public long write(List<ReferenceStatement> statements) {
		Objects.requireNonNull(statements, "statements");
		if (statements.isEmpty()) {
			throw new IllegalArgumentException("A reference write needs at least one statement");
		}
		if (tables().isEmpty()) {
			throw new ReferenceWriteException("Reference write refused, nothing recorded: no reference tables are "
					+ "declared (shard-tenancy.reference-tables, @ReferenceData or ShardTenancyBuilder.referenceTables)",
					null, null);
		}
		String encoded = StatementCodec.encode(statements);
		if (encoded.length() > MAX_ENCODED) {
			throw new ReferenceWriteException("Reference write refused, nothing recorded: its statements take "
					+ encoded.length() + " characters in the directory's log, more than " + MAX_ENCODED
					+ "; split it into several writes", null, null);
		}
		List<TwoPhaseCommit.ShardWrite> held = new ArrayList<>();
		java.util.concurrent.atomic.AtomicLong attempted = new java.util.concurrent.atomic.AtomicLong(-1);
		long version;
		try {
			version = this.directory.transaction((c, v) -> {
				attempted.set(v);
				long latest = latest(c);
				for (String shardId : targets(c)) {
					held.add(this.commit.hold(c, shardId, latest, v, statements, encoded));
				}
				try (PreparedStatement ps = c.prepareStatement("INSERT INTO shard_reference_log (version, statements, "
						+ "written_at, written_by) VALUES (?, ?, CURRENT_TIMESTAMP, ?)")) {
					ps.setLong(1, v);
					ps.setString(2, encoded);
					ps.setString(3, this.actor);
					ps.executeUpdate();
				}
				return v;
			});
		}
		catch (RuntimeException ex) {
			// The directory transaction rolled back, or its commit failed and may have happened or not.
			Boolean recorded = this.commit.recorded(ex, attempted.get(), encoded);
			if (!Boolean.TRUE.equals(recorded)) {
				TwoPhaseCommit.abandon(held, recorded == null, ex);
				throw ex;
			}
			version = attempted.get(); // the commit's reply was lost, but the write is recorded
		}
		// Durable from here: a retry of the surrounding work must not run it again (it would apply it twice).
		io.github.shardtenancy.retry.CommittedWork.record("reference write at directory version " + version);
		log.info("Reference write recorded at directory version {} ({} statement(s)); committing it on shards {}",
				version, statements.size(), held.stream().map(w -> w.shard().id()).toList());
		this.commit.finish(held, version);
		return version;
	}

	@Override
	public long repair() {
		this.commit.resolveAll();
		Head head = head();
		applyAll(head.targets(), head.latest());
		return head.latest();
	}

	/** The latest logged version and the shards that must have it, read from the directory. */
	private record Head(long latest, List<String> targets) {
	}

	private Head head() {
		try (Connection c = this.directory.dataSource().getConnection()) {
			return new Head(latest(c), targets(c));
		}
		catch (SQLException ex) {
			throw new DirectoryUnavailableException(null, -1, ex);
		}
	}

	/**
	 * Catches a shard up inside the directory transaction that registers it, so that no reference write can commit
	 * between the catch-up and the shard becoming ACTIVE (a write waits for the registration's lock, then finds the
	 * shard among its targets).
	 * @param directoryTransaction the registration's directory transaction
	 * @param shardId the shard being registered
	 * @throws ShardTenancyConfigurationException if the shard cannot be caught up; the registration then fails
	 */
	public void registering(Connection directoryTransaction, String shardId) {
		Topology.Shard shard = this.topology.shard(shardId);
		try {
			long latest = latest(directoryTransaction);
			if (latest == 0) {
				knownCurrent().add(shardId); // nothing was ever written: nothing to replay
				return;
			}
			long at = catchUp(shard, directoryTransaction, latest);
			knownCurrent().add(shardId);
			log.info("Shard '{}' has the reference data at directory version {}", shardId, at);
		}
		catch (SQLException ex) {
			knownCurrent().remove(shardId);
			throw new ShardTenancyConfigurationException("shard-tenancy.reference-tables", "Cannot give shard '" + shardId
					+ "' the reference data before it becomes ACTIVE: " + ex.getMessage()
					+ "; check that the shard is migrated (shard_reference_version) and reachable", shardId);
		}
	}

	@Override
	public ReferenceDataReport verify() {
		Head head = head();
		long latest = head.latest();
		List<String> targets = head.targets();
		Map<String, Long> versions = new TreeMap<>();
		Map<String, Map<String, Long>> checksums = new TreeMap<>();
		List<String> unreachable = new ArrayList<>();
		for (String shardId : targets) {
			Topology.Shard shard = this.topology.find(shardId).orElse(null);
			if (shard == null) {
				unreachable.add(shardId);
				continue;
			}
			try (Connection s = shard.dataSource().getConnection()) {
				s.setReadOnly(true);
				versions.put(shardId, shardVersion(s, false));
				Map<String, Long> sums = new TreeMap<>();
				for (String table : tables()) {
					sums.put(table, checksum(s, table));
				}
				checksums.put(shardId, sums);
			}
			catch (SQLException ex) {
				log.warn("Cannot read the reference data of shard '{}': {}", shardId, ex.getMessage());
				unreachable.add(shardId);
			}
		}
		Set<String> differing = new TreeSet<>();
		for (String table : tables()) {
			if (checksums.values().stream().map(sums -> sums.get(table)).distinct().count() > 1) {
				differing.add(table);
			}
		}
		Set<String> known = knownCurrent();
		versions.forEach((shardId, version) -> {
			if (version >= latest) {
				known.add(shardId);
			}
			else {
				known.remove(shardId);
			}
		});
		return new ReferenceDataReport(latest, versions, unreachable, checksums, List.copyOf(differing));
	}

	@Override
	public List<String> readShards() {
		List<String> candidates = new ArrayList<>(new TreeSet<>(knownCurrent()));
		candidates.retainAll(this.topology.shardIds());
		if (candidates.size() > 1) {
			int start = Math.floorMod(this.next.getAndIncrement(), candidates.size());
			java.util.Collections.rotate(candidates, -start);
		}
		return candidates;
	}

	Set<String> knownCurrent() {
		Set<String> known = this.current;
		if (known == null) {
			synchronized (this) {
				known = this.current;
				if (known == null) {
					known = ConcurrentHashMap.newKeySet();
					this.current = known;
					refresh(known);
				}
			}
		}
		return known;
	}

	/** Reads the applied version of every shard of the topology; those at the latest are current. */
	private void refresh(Set<String> known) {
		long latest;
		try (Connection c = this.directory.dataSource().getConnection()) {
			latest = latest(c);
		}
		catch (SQLException ex) {
			log.warn("Cannot read the reference log: {}", ex.getMessage());
			return;
		}
		for (String shardId : this.topology.shardIds()) {
			try (Connection s = this.topology.shard(shardId).dataSource().getConnection()) {
				if (shardVersion(s, false) >= latest) {
					known.add(shardId);
				}
			}
			catch (SQLException | RuntimeException ex) {
				log.debug("Shard '{}' not read for its reference version: {}", shardId, ex.getMessage());
			}
		}
	}

	private void applyAll(List<String> targets, long version) {
		Map<String, String> unreachable = new TreeMap<>();
		Map<String, String> refused = new TreeMap<>();
		List<Throwable> failures = new ArrayList<>();
		for (String shardId : targets) {
			try {
				Topology.Shard shard = this.topology.find(shardId).orElseThrow(() -> new SQLException("shard '"
						+ shardId + "' is not in this instance's topology; call TenantAdmin.syncShards()", "08001"));
				catchUpRetrying(shard, version);
				knownCurrent().add(shardId);
			}
			catch (SQLException | RuntimeException ex) {
				knownCurrent().remove(shardId);
				log.warn("Reference data of shard '{}' is behind directory version {}: {}", shardId, version,
						ex.getMessage());
				if (ex instanceof SQLException failure && !TwoPhaseCommit.isUnreachable(failure)) {
					refused.put(shardId, failure.getMessage());
				}
				else {
					unreachable.put(shardId, String.valueOf(ex.getMessage()));
				}
				failures.add(ex);
			}
		}
		if (!unreachable.isEmpty() || !refused.isEmpty()) {
			throw new ReferenceDataBehindException(version, unreachable, refused, failures);
		}
	}

	/**
	 * {@link #catchUp} once more after a failure, with the pool's idle connections evicted first: a shard that came
	 * back leaves connections in the pool that its restart broke, and catching up is idempotent.
	 */
	private void catchUpRetrying(Topology.Shard shard, long version) throws SQLException {
		try {
			catchUp(shard, null, version);
		}
		catch (SQLException ex) {
			if (!TwoPhaseCommit.evict(shard)) {
				throw ex;
			}
			log.debug("Catching shard '{}' up again with fresh connections after: {}", shard.id(), ex.getMessage());
			catchUp(shard, null, version);
		}
	}

	/**
	 * Brings a shard to a version in one shard transaction.
	 * @param directoryConnection where to read the log, or {@code null} for a connection of its own
	 * @return the shard's version after
	 * @throws SQLException if the shard cannot be reached or a logged write fails on it
	 */
	private long catchUp(Topology.Shard shard, @Nullable Connection directoryConnection, long upTo)
			throws SQLException {
		try (Connection s = shard.dataSource().getConnection()) {
			s.setAutoCommit(false);
			try {
				long at = shardVersion(s, true);
				long before = at;
				if (at < upTo) {
					for (Map.Entry<Long, List<ReferenceStatement>> entry : entries(directoryConnection, at, upTo)
						.entrySet()) {
						run(s, entry.getValue());
						at = entry.getKey();
					}
				}
				if (at != before) {
					try (PreparedStatement ps = s.prepareStatement(
							"UPDATE shard_reference_version SET version = ?, updated_at = CURRENT_TIMESTAMP WHERE id = 1")) {
						ps.setLong(1, at);
						ps.executeUpdate();
					}
				}
				s.commit();
				if (at != before) {
					log.info("Shard '{}' reference data brought from version {} to {}", shard.id(), before, at);
				}
				return at;
			}
			catch (SQLException | RuntimeException ex) {
				s.rollback();
				throw ex;
			}
		}
	}

	private Map<Long, List<ReferenceStatement>> entries(@Nullable Connection directoryConnection, long after,
			long upTo) throws SQLException {
		if (directoryConnection != null) {
			return entriesOn(directoryConnection, after, upTo);
		}
		try (Connection c = this.directory.dataSource().getConnection()) {
			return entriesOn(c, after, upTo);
		}
	}

	static Map<Long, List<ReferenceStatement>> entriesOn(Connection c, long after, long upTo)
			throws SQLException {
		Map<Long, List<ReferenceStatement>> entries = new LinkedHashMap<>();
		try (PreparedStatement ps = c.prepareStatement("SELECT version, statements FROM shard_reference_log "
				+ "WHERE version > ? AND version <= ? ORDER BY version")) {
			ps.setLong(1, after);
			ps.setLong(2, upTo);
			try (ResultSet rs = ps.executeQuery()) {
				while (rs.next()) {
					entries.put(rs.getLong(1), StatementCodec.decode(rs.getString(2)));
				}
			}
		}
		return entries;
	}

	static void run(Connection s, List<ReferenceStatement> statements) throws SQLException {
		for (ReferenceStatement statement : statements) {
			try (PreparedStatement ps = s.prepareStatement(statement.sql())) {
				int i = 1;
				for (Object value : statement.parameters()) {
					ps.setObject(i++, value);
				}
				ps.execute();
			}
			catch (SQLException ex) {
				throw new SQLException("statement \"" + statement.sql() + "\": " + ex.getMessage(), ex.getSQLState(),
						ex);
			}
		}
	}

	static long latest(Connection directory) throws SQLException {
		try (PreparedStatement ps = directory.prepareStatement(
				"SELECT COALESCE(MAX(version), 0) FROM shard_reference_log");
				ResultSet rs = ps.executeQuery()) {
			rs.next();
			return rs.getLong(1);
		}
	}

	static long shardVersion(Connection s, boolean lock) throws SQLException {
		try (PreparedStatement ps = s.prepareStatement(
				"SELECT version FROM shard_reference_version WHERE id = 1" + (lock ? " FOR UPDATE" : ""));
				ResultSet rs = ps.executeQuery()) {
			if (!rs.next()) {
				throw new SQLException("shard_reference_version has no row; migrate the shard");
			}
			return rs.getLong(1);
		}
	}

	/** The ACTIVE shards of the registry, or the topology's shards if the registry has none. */
	private List<String> targets(Connection directory) throws SQLException {
		List<String> active = ShardRegistry.active(directory).stream().map(ShardRecord::shardId).toList();
		return active.isEmpty() ? List.copyOf(this.topology.shardIds()) : active;
	}

	/** Sum of a 64-bit FNV-1a hash of each row's values in text form: equal for equal multisets of rows. */
	private static long checksum(Connection s, String table) throws SQLException {
		long sum = 0;
		try (PreparedStatement ps = s.prepareStatement("SELECT * FROM " + table); ResultSet rs = ps.executeQuery()) {
			ResultSetMetaData meta = rs.getMetaData();
			int columns = meta.getColumnCount();
			while (rs.next()) {
				long hash = 0xcbf29ce484222325L;
				for (int i = 1; i <= columns; i++) {
					Object value = rs.getObject(i);
					String text = value == null ? "\u0000null" : value.toString();
					for (byte b : (text + '\u0001').getBytes(StandardCharsets.UTF_8)) {
						hash ^= b & 0xff;
						hash *= 0x100000001b3L;
					}
				}
				sum += hash;
			}
		}
		return sum;
	}

}
