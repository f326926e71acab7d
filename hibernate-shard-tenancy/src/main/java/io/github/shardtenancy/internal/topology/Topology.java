package io.github.shardtenancy.internal.topology;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.ShardTenancyConfigurationException;
import io.github.shardtenancy.ShardTopology;
import io.github.shardtenancy.ShardUnavailableException;
import io.github.shardtenancy.UnknownShardException;
import io.github.shardtenancy.spi.FenceDialect;
import io.github.shardtenancy.spi.ShardPoolListener;
import org.slf4j.LoggerFactory;

/**
 * The topology: logical shard id to a connection pool (HikariCP) on that shard's database. The directory names only
 * logical ids, so a failover or a new host changes the topology, never the directory.
 *
 * <p>Shards can be added while the application runs. Each shard's {@link FenceDialect} is chosen once, when the shard
 * is added, from the database product name, among the dialects found through {@link ServiceLoader} (the modules
 * {@code hibernate-shard-tenancy-h2} and {@code hibernate-shard-tenancy-postgresql} ship one each).
 *
 * <p>Thread-safe. Closing the topology closes every pool it created (pools passed in by the caller are left open).
 */
public class Topology implements ShardTopology, AutoCloseable {

	private static final Pattern SHARD_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");

	private final Map<String, Shard> shards = new ConcurrentHashMap<>();

	/** Configured shards not reached at start-up, until they {@linkplain #arrive arrive}: their pools. */
	private final Map<String, Pending> pending = new ConcurrentHashMap<>();

	private final Object attachLock = new Object();

	private final Map<String, List<Replica>> replicas = new ConcurrentHashMap<>();

	private volatile MissingShardSource missingShardSource;

	private volatile List<ShardPoolListener> poolListeners = List.of();

	/**
	 * Supplies the connection settings of a shard that is not in this topology yet but may be used, for example one
	 * another application instance registered at runtime (see {@code io.github.shardtenancy.internal.topology.ShardRegistry}).
	 */
	@FunctionalInterface
	public interface MissingShardSource {

		/**
		 * @param shardId the shard asked for
		 * @return a pool on it (the topology owns and closes it), or empty if it is unknown or retired
		 */
		Optional<DataSource> poolFor(String shardId);

	}

	/**
	 * Sets where pools for missing shards come from: {@link #find(String)} and {@link #shard(String)} then add a
	 * missing shard on first use, if the source knows it.
	 * @param source the source, or {@code null} for none
	 */
	public void setMissingShardSource(MissingShardSource source) {
		this.missingShardSource = source;
	}

	/**
	 * Sets who is told when a shard joins or leaves the topology.
	 * @param listeners the listeners, told in list order; copied; never {@code null}
	 */
	public void setPoolListeners(List<ShardPoolListener> listeners) {
		this.poolListeners = List.copyOf(listeners);
	}

	/**
	 * One shard of the topology.
	 * @param id the logical shard id
	 * @param dataSource its pool
	 * @param dialect its fence dialect
	 * @param owned whether the topology created the pool and closes it
	 */
	public record Shard(String id, DataSource dataSource, FenceDialect dialect, boolean owned) {

		/**
		 * Discards a connection borrowed from this shard's pool instead of returning it, so that no later borrower
		 * gets it: for a connection whose protocol or session state is unknown or broken, such as one whose
		 * {@code COPY} failed or was cancelled, or whose session variables could not be cleared. From an open
		 * {@link HikariDataSource} it is evicted ({@link HikariDataSource#evictConnection}): the pool closes the
		 * physical connection and opens a new one when it needs one. Any other connection (from another pool, from a
		 * closed pool, or not a HikariCP proxy) is closed, and it is up to its pool to check it.
		 * <p>Do not close the connection afterwards: after an eviction its {@code close()} would reset and recycle
		 * a connection the pool no longer has. Thread-safe, as the pool is.
		 * @param connection a connection this shard's pool handed out, itself (not a wrapper of it), not closed yet
		 * @throws SQLException if closing the connection fails (an eviction does not throw)
		 */
		public void discard(Connection connection) throws SQLException {
			// HikariCP evicts only its own proxies of an open pool and ignores any other connection (HikariDataSource
			// .evictConnection in https://github.com/brettwooldridge/HikariCP): that connection is closed instead.
			if (this.dataSource instanceof HikariDataSource pool && !pool.isClosed()
					&& connection.getClass().getName().startsWith("com.zaxxer.hikari.")) {
				pool.evictConnection(connection);
			}
			else {
				connection.close();
			}
		}

	}

	/**
	 * Adds a shard with a pool the topology creates and owns.
	 * @param shardId logical id: 1 to 64 letters, digits, {@code . _ -}, starting with a letter or digit
	 * @param config the HikariCP settings (JDBC URL, credentials, pool size); the pool name defaults to the shard id
	 * @return the shard
	 * @throws ShardTenancyConfigurationException if the id is malformed or already present, or the database cannot
	 * be reached to choose its dialect
	 */
	public Shard addShard(String shardId, HikariConfig config) {
		requireValidId(shardId);
		if (config.getPoolName() == null) {
			config.setPoolName("shard-" + shardId);
		}
		HikariDataSource pool = new HikariDataSource(config);
		try {
			return register(shardId, pool, true);
		}
		catch (RuntimeException ex) {
			pool.close();
			throw ex;
		}
	}

	/**
	 * A configured shard whose database could not be reached at start-up.
	 * @param dataSource its pool, which opens connections only when asked
	 * @param owned whether the topology closes the pool
	 */
	public record Pending(DataSource dataSource, boolean owned) {
	}

	/**
	 * Adds a configured shard whose database could not be reached: it is not in {@link #shardIds()}, {@link #find}
	 * does not find it (nor asks the {@link MissingShardSource} for it) and {@link #isPending} tells it, until
	 * {@link #arrive}.
	 * @param shardId logical id, as for {@link #addShard(String, HikariConfig)}
	 * @param dataSource its pool
	 * @param owned whether the topology closes the pool
	 * @throws ShardTenancyConfigurationException if the id is malformed or already present
	 */
	public void addPending(String shardId, DataSource dataSource, boolean owned) {
		requireValidId(shardId);
		if (this.shards.containsKey(shardId) || this.pending.putIfAbsent(shardId, new Pending(dataSource, owned)) != null) {
			throw new ShardTenancyConfigurationException("shard-tenancy.shards." + shardId,
					"Shard '" + shardId + "' is already in the topology");
		}
	}

	/** @return the shards not reached yet, by id, in id order */
	public java.util.SortedMap<String, Pending> pending() {
		return new java.util.TreeMap<>(this.pending);
	}

	@Override
	public Set<String> pendingShardIds() {
		return new TreeSet<>(this.pending.keySet());
	}

	/**
	 * @param shardId a shard id
	 * @return whether it is a configured shard not reached yet
	 */
	public boolean isPending(String shardId) {
		return this.pending.containsKey(shardId);
	}

	/**
	 * Moves a pending shard into the topology, once its database answers (and the caller has migrated and prepared
	 * it): from then on it is found and routed to.
	 * @param shardId a pending shard
	 * @return the shard
	 * @throws UnknownShardException if it is not pending
	 * @throws ShardTenancyConfigurationException if its database cannot be reached to choose its dialect (it stays
	 * pending)
	 */
	public Shard arrive(String shardId) {
		Pending waiting = this.pending.remove(shardId);
		if (waiting == null) {
			throw new UnknownShardException(shardId, null, -1);
		}
		try {
			return register(shardId, waiting.dataSource(), waiting.owned());
		}
		catch (RuntimeException ex) {
			if (!this.shards.containsKey(shardId)) {
				this.pending.putIfAbsent(shardId, waiting);
			}
			else if (waiting.owned()) {
				closePool(waiting.dataSource());
			}
			throw ex;
		}
	}

	/**
	 * Adds a shard with a pool the caller owns (and closes).
	 * @param shardId logical id, as for {@link #addShard(String, HikariConfig)}
	 * @param dataSource the pool
	 * @return the shard
	 * @throws ShardTenancyConfigurationException if the id is malformed or already present, or no dialect fits
	 */
	public Shard addShard(String shardId, DataSource dataSource) {
		return addShard(shardId, dataSource, false);
	}

	/**
	 * Adds a shard with a pool the topology owns (closes) or not.
	 * @param shardId logical id, as for {@link #addShard(String, HikariConfig)}
	 * @param dataSource the pool
	 * @param owned whether the topology closes the pool when the shard is removed or the topology closed
	 * @return the shard
	 * @throws ShardTenancyConfigurationException if the id is malformed or already present, or no dialect fits
	 */
	public Shard addShard(String shardId, DataSource dataSource, boolean owned) {
		requireValidId(shardId);
		return register(shardId, dataSource, owned);
	}

	private Shard register(String shardId, DataSource dataSource, boolean owned) {
		Shard shard = new Shard(shardId, dataSource, dialectOf(shardId, dataSource), owned);
		if (this.shards.putIfAbsent(shardId, shard) != null) {
			throw new ShardTenancyConfigurationException("shard-tenancy.shards." + shardId,
					"Shard '" + shardId + "' is already in the topology");
		}
		// A shard added while it was pending (registered again by hand) takes its place: no longer tried.
		Pending replaced = this.pending.remove(shardId);
		if (replaced != null && replaced.owned() && replaced.dataSource() != dataSource) {
			closePool(replaced.dataSource());
		}
		tellListeners(shardId, dataSource, true);
		return shard;
	}

	/**
	 * Removes a shard and closes its pool if the topology owns it. Work still routed to it fails with
	 * {@link UnknownShardException}.
	 * @param shardId the shard
	 * @return whether it was present
	 */
	public boolean removeShard(String shardId) {
		Shard shard = this.shards.remove(shardId);
		if (shard != null) {
			tellListeners(shardId, shard.dataSource(), false);
		}
		if (shard != null && shard.owned()) {
			closePool(shard.dataSource());
		}
		return shard != null;
	}

	private void tellListeners(String shardId, DataSource pool, boolean added) {
		for (ShardPoolListener listener : this.poolListeners) {
			try {
				if (added) {
					listener.poolAdded(shardId, pool);
				}
				else {
					listener.poolRemoved(shardId, pool);
				}
			}
			catch (RuntimeException ex) {
				LoggerFactory.getLogger(Topology.class)
					.warn("Shard pool listener {} failed for shard '{}'; the shard is {} the topology all the same",
							listener, shardId, added ? "in" : "out of", ex);
			}
		}
	}

	private static void closePool(DataSource pool) {
		if (pool instanceof AutoCloseable closeable) {
			try {
				closeable.close();
			}
			catch (Exception ex) {
				LoggerFactory.getLogger(Topology.class).warn("Closing a shard pool failed: {}", ex.toString());
			}
		}
	}

	/**
	 * @param shardId the shard
	 * @return the shard
	 * @throws ShardUnavailableException if it is a configured shard not reached yet ({@link #isPending})
	 * @throws UnknownShardException if it is not in the topology
	 */
	public Shard shard(String shardId) {
		return find(shardId).orElseThrow(() -> this.pending.containsKey(shardId)
				? new ShardUnavailableException(null, shardId, -1, notReachedYet(shardId))
				: new UnknownShardException(shardId, null, -1));
	}

	/**
	 * @param shardId a pending shard
	 * @return the reason its work fails, as a connection failure (SQLSTATE {@code 08001})
	 */
	public static java.sql.SQLException notReachedYet(String shardId) {
		return new java.sql.SQLException("shard '" + shardId + "' could not be reached at start-up; it is tried again "
				+ "in the background and serves its tenants once it answers and is migrated and prepared", "08001");
	}

	/**
	 * Looks a shard up; a missing one is added first if the {@link MissingShardSource} knows it.
	 * @param shardId the shard
	 * @return the shard, or empty if it is neither in the topology nor known to the source
	 * @throws ShardTenancyConfigurationException if the source knows the shard but its database cannot be reached
	 */
	public Optional<Shard> find(String shardId) {
		Shard shard = this.shards.get(shardId);
		MissingShardSource source = this.missingShardSource;
		if (shard != null || source == null || shardId == null || this.pending.containsKey(shardId)) {
			return Optional.ofNullable(shard);
		}
		synchronized (this.attachLock) {
			shard = this.shards.get(shardId);
			if (shard != null) {
				return Optional.of(shard);
			}
			return source.poolFor(shardId).map(pool -> {
				try {
					requireValidId(shardId);
					return register(shardId, pool, true);
				}
				catch (RuntimeException ex) {
					closePool(pool);
					throw ex;
				}
			});
		}
	}

	@Override
	public DataSource dataSource(String shardId) {
		return shard(shardId).dataSource();
	}

	/**
	 * @param shardId the shard
	 * @return whether the topology has it
	 */
	@Override
	public boolean contains(String shardId) {
		return this.shards.containsKey(shardId);
	}

	/** @return the shard ids, sorted; a snapshot */
	@Override
	public Set<String> shardIds() {
		return new TreeSet<>(this.shards.keySet());
	}

	/** @return the shard with the smallest id, for work that needs any shard (Hibernate bootstrap) */
	public Shard anyShard() {
		return this.shardIds().stream().findFirst().map(this::shard)
			.orElseThrow(() -> new ShardTenancyConfigurationException("shard-tenancy.shards",
					"The topology has no shards: configure at least one"));
	}

	@Override
	public void close() {
		for (String id : List.copyOf(this.shards.keySet())) {
			removeShard(id);
		}
		for (String id : List.copyOf(this.pending.keySet())) {
			Pending waiting = this.pending.remove(id);
			if (waiting != null && waiting.owned()) {
				closePool(waiting.dataSource());
			}
		}
		for (String id : List.copyOf(this.replicas.keySet())) {
			removeReplicas(id);
		}
	}

	/**
	 * Adds a read replica to a shard, with a read-only pool the topology creates and owns. The replica serves nothing
	 * until the lag sampler ({@link ReplicaLagSampler}) has found it caught up.
	 * @param shardId the shard, which need not be in the topology yet
	 * @param name the replica's name, unique within the shard (1 to 64 letters, digits, {@code . _ -})
	 * @param config the HikariCP settings of the replica; set read-only here; the pool name defaults to
	 * {@code replica-<shard>-<name>}
	 * @return the replica
	 * @throws ShardTenancyConfigurationException if the shard id or name is malformed or the name already used
	 */
	public Replica addReplica(String shardId, String name, HikariConfig config) {
		requireValidId(shardId);
		if (name == null || !SHARD_ID.matcher(name).matches()) {
			throw new ShardTenancyConfigurationException("shard-tenancy.shards." + shardId + ".replicas",
					"Invalid replica name '" + name + "' of shard '" + shardId
							+ "': use 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit");
		}
		config.setReadOnly(true);
		if (config.getPoolName() == null) {
			config.setPoolName("replica-" + shardId + "-" + name);
		}
		// Fail fast only for broken settings: a replica that is down at start-up is tried again by the sampler.
		config.setInitializationFailTimeout(-1);
		return addReplica(shardId, name, new HikariDataSource(config), true);
	}

	/**
	 * Adds a read replica to a shard with a pool the caller gives.
	 * @param shardId the shard
	 * @param name the replica's name, unique within the shard
	 * @param dataSource the replica's pool; it should hand out read-only connections
	 * @param owned whether the topology closes the pool when the replica is removed or the topology closed
	 * @return the replica
	 * @throws ShardTenancyConfigurationException if the name is already used for this shard
	 */
	public Replica addReplica(String shardId, String name, DataSource dataSource, boolean owned) {
		Replica replica = new Replica(shardId, name, dataSource, owned);
		synchronized (this.replicas) {
			List<Replica> current = this.replicas.getOrDefault(shardId, List.of());
			if (current.stream().anyMatch(r -> r.name().equals(name))) {
				if (owned) {
					closePool(dataSource);
				}
				throw new ShardTenancyConfigurationException("shard-tenancy.shards." + shardId + ".replicas",
						"Shard '" + shardId + "' already has a replica named '" + name + "'");
			}
			List<Replica> updated = new java.util.ArrayList<>(current);
			updated.add(replica);
			this.replicas.put(shardId, List.copyOf(updated));
		}
		return replica;
	}

	/**
	 * @param shardId a shard
	 * @return its replicas, in the order they were added; empty if none; a snapshot
	 */
	public List<Replica> replicas(String shardId) {
		return this.replicas.getOrDefault(shardId, List.of());
	}

	@Override
	public List<io.github.shardtenancy.ReplicaStatus> replicas() {
		long now = System.nanoTime();
		return new TreeSet<>(this.replicas.keySet()).stream()
			.flatMap(shardId -> replicas(shardId).stream())
			.map(replica -> {
				long lag = replica.lagNanos(now);
				return new io.github.shardtenancy.ReplicaStatus(replica.shardId(), replica.name(),
						lag == Long.MAX_VALUE ? null : java.time.Duration.ofNanos(lag), replica.problem());
			})
			.toList();
	}

	/**
	 * Removes every replica of a shard, closing the pools the topology owns.
	 * @param shardId the shard
	 * @return the replicas removed
	 */
	public List<Replica> removeReplicas(String shardId) {
		List<Replica> removed;
		synchronized (this.replicas) {
			removed = this.replicas.remove(shardId);
		}
		if (removed == null) {
			return List.of();
		}
		for (Replica replica : removed) {
			if (replica.owned()) {
				closePool(replica.dataSource());
			}
		}
		return removed;
	}

	/**
	 * Points a shard at a new primary (a failover): the shard keeps its logical id, so the directory is untouched, and
	 * the old pool is closed if the topology owned it. Transactions in flight on the old pool finish or fail there;
	 * every later borrow gets the new primary.
	 * @param shardId a shard of the topology
	 * @param config the new primary's HikariCP settings; the pool name defaults to the shard id
	 * @return the shard as it is now
	 * @throws io.github.shardtenancy.UnknownShardException if the shard is not in the topology
	 * @throws ShardTenancyConfigurationException if the new primary cannot be reached or runs a database no dialect
	 * supports
	 */
	public Shard replacePrimary(String shardId, HikariConfig config) {
		Shard old = shard(shardId);
		if (config.getPoolName() == null) {
			config.setPoolName("shard-" + shardId);
		}
		HikariDataSource pool = new HikariDataSource(config);
		Shard replaced;
		try {
			replaced = new Shard(shardId, pool, dialectOf(shardId, pool), true);
		}
		catch (RuntimeException ex) {
			pool.close();
			throw ex;
		}
		if (!this.shards.replace(shardId, old, replaced)) {
			pool.close();
			throw new ShardTenancyConfigurationException("shard-tenancy.shards." + shardId,
					"Shard '" + shardId + "' changed while its primary was being replaced; try again");
		}
		tellListeners(shardId, old.dataSource(), false);
		tellListeners(shardId, pool, true);
		if (old.owned()) {
			closePool(old.dataSource());
		}
		return replaced;
	}

	private static void requireValidId(String shardId) {
		if (shardId == null || !SHARD_ID.matcher(shardId).matches()) {
			throw new ShardTenancyConfigurationException("shard-tenancy.shards", "Invalid shard id '" + shardId
					+ "': use 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit");
		}
	}

	/** @return the suffix of the artifact that ships the dialect of a database, as far as the library knows one */
	private static String moduleHint(String product) {
		String lower = String.valueOf(product).toLowerCase(java.util.Locale.ROOT);
		if (lower.contains("postgres")) {
			return "postgresql";
		}
		return lower.contains("h2") ? "h2" : "<database> (see docs/adding-a-database.md)";
	}

	/**
	 * Finds the fence dialect of a shard's database among those registered with {@link ServiceLoader}, as the topology
	 * does for each shard it adds.
	 * @param shardId the shard's id, for error messages
	 * @param dataSource a pool on the shard
	 * @return the dialect; never {@code null}
	 * @throws ShardTenancyConfigurationException if the shard cannot be reached or no dialect supports its database
	 */
	public static FenceDialect dialectOf(String shardId, DataSource dataSource) {
		String product;
		try (Connection c = dataSource.getConnection()) {
			product = c.getMetaData().getDatabaseProductName();
		}
		catch (SQLException ex) {
			throw new ShardTenancyConfigurationException("shard-tenancy.shards." + shardId,
					"Cannot reach shard '" + shardId + "' to identify its database: " + ex.getMessage());
		}
		List<FenceDialect> dialects = ServiceLoader.load(FenceDialect.class).stream()
			.map(ServiceLoader.Provider::get)
			.toList();
		for (FenceDialect dialect : dialects) {
			if (dialect.supports(product)) {
				return dialect;
			}
		}
		throw new ShardTenancyConfigurationException("shard-tenancy.shards." + shardId, "Shard '" + shardId
				+ "' runs " + product + ", which no fence dialect on the class path supports (found: "
				+ (dialects.isEmpty() ? "none" : String.join(", ", dialects.stream()
					.map(dialect -> dialect.getClass().getName())
					.toList()))
				+ "); add the dialect module of that database, e.g. io.github.shardtenancy:hibernate-shard-tenancy-"
				+ moduleHint(product), shardId);
	}

}
