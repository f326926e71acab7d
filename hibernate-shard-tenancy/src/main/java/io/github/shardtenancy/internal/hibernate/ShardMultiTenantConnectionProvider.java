package io.github.shardtenancy.internal.hibernate;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.NoTenantBoundException;
import io.github.shardtenancy.ReplicaSettings;
import io.github.shardtenancy.TenantState;
import io.github.shardtenancy.ShardConnectionLostException;
import io.github.shardtenancy.ShardUnavailableException;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.TenantSwitchedException;
import io.github.shardtenancy.TransactionCharacteristics;
import io.github.shardtenancy.UnknownShardException;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.internal.ids.IdSource;
import io.github.shardtenancy.internal.ids.ShardIds;
import io.github.shardtenancy.internal.jdbc.ConnectionGuard;
import io.github.shardtenancy.internal.jdbc.ReferenceReadConnection;
import io.github.shardtenancy.internal.jdbc.TenantConnection;
import io.github.shardtenancy.internal.routing.Router;
import io.github.shardtenancy.internal.topology.Replica;
import io.github.shardtenancy.internal.topology.Topology;
import io.github.shardtenancy.spi.FenceDialect;
import org.hibernate.engine.jdbc.connections.spi.MultiTenantConnectionProvider;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hibernate's {@link MultiTenantConnectionProvider}: hands Hibernate a connection of the tenant's shard, with the
 * tenant id and directory version set as session variables and the fence checked, in no round trip of its own where
 * the dialect allows it (see below).
 *
 * <p>For each {@link #getConnection(String)}:
 * <ol>
 * <li>a session opened with no tenant, if no tenant is bound now either, gets a read-only connection for the reference
 * tables only ({@link #referenceConnection(String)}; {@link NoTenantBoundException} when none are declared); a session
 * whose tenant (or lack of one) differs from the tenant now bound on the thread (open session in view), or a second
 * tenant while another's connection is held on this thread, raises {@link TenantSwitchedException}: all before any
 * connection is borrowed;</li>
 * <li>the {@link Router} resolves the tenant (cache hit on the hot path; unknown, deleted or unroutable tenants
 * raise their typed errors here, also before any connection is borrowed);</li>
 * <li>a connection is borrowed from the owner shard's pool (a failure to borrow one, such as a shard server that is
 * down, raises {@link ShardUnavailableException}: nothing ran, and the retry may run the work again) and the shard's
 * {@link io.github.shardtenancy.spi.FenceDialect} checks the fence and binds the variables: right away, or, when the
 * dialect has a {@link io.github.shardtenancy.spi.FenceDialect#beginStatement() beginStatement} (PostgreSQL), sent
 * together with the transaction's first query, before any other statement of the transaction runs (a fence rejection
 * or a broken pooled connection then surfaces from that first statement, with the same SQLState and, for the broken
 * connection, a {@link ShardUnavailableException} as its cause). A route to a shard that is
 * no longer in the topology, or whose pool was closed (a retired shard), is a stale entry: the entry is invalidated
 * and read again, up to three routes, so that "pool closed" never reaches the caller ({@link UnknownShardException},
 * naming the tenant, the shard and the entry's directory version, if the directory itself still names a shard this
 * instance cannot reach). A fence rejection (SQLSTATE 40001) returns the connection to the pool
 * and propagates as the {@link SQLException}, which Hibernate and Spring wrap; the retry layer finds it in the cause
 * chain.</li>
 * </ol>
 * Before the fence begin, the isolation level and read-only flag that the transaction declared through
 * {@link TransactionCharacteristics} (the Spring Boot module declares those of {@code @Transactional}) are set on the
 * borrowed connection.
 * With replica routing enabled ({@link #setReplicaSettings}), a transaction declared read-only of a tenant ACTIVE on
 * its shard borrows from a replica of that shard instead, when one is within the maximum lag and has replayed past the
 * moment this provider first routed with the entry's version; the fence begin then runs on the replica, against its
 * replicated fence table. A replica that cannot hand out a connection is marked down and the primary serves.
 * {@link #releaseConnection(String, Connection)} clears the variables before the connection goes back to its pool, or
 * evicts the connection from the pool if that fails, so no later borrower ever sees them.
 *
 * <p>{@link #getAnyConnection()} serves Hibernate's bootstrap (dialect and metadata) from the shard with the smallest
 * id, without session variables. Thread-safe.
 */
public class ShardMultiTenantConnectionProvider implements MultiTenantConnectionProvider<String>, IdSource {

	private static final Logger log = LoggerFactory.getLogger(ShardMultiTenantConnectionProvider.class);

	/** Routes tried when the route names a retired shard (closed or dropped pool) before giving up. */
	private static final int STALE_SHARD_ATTEMPTS = 3;

	private final Router router;

	private final Topology topology;

	private final @Nullable ShardIds ids;

	private final Map<Connection, Topology.Shard> checkedOut = new ConcurrentHashMap<>();

	private volatile @Nullable ReferenceReads referenceReads;

	/** Per shard, the role its work with no tenant bound runs as ({@link #setReferenceRole}); none if absent. */
	private final Map<String, String> referenceRoles = new ConcurrentHashMap<>();

	private volatile EntityTenancy entityTenancy = new EntityTenancy(io.github.shardtenancy.EntityCheck.FAIL, List.of());

	private volatile java.util.function.@Nullable Consumer<TenantConnection.Usage> usageSink;
	private volatile @Nullable ReplicaSettings replicaSettings;

	/**
	 * Per tenant, the directory version of its entry this provider last routed with and {@link System#nanoTime()} when
	 * it first did: a replica serves the tenant only once it has replayed everything committed before that moment.
	 */
	private final Map<String, long[]> versionSeen = new ConcurrentHashMap<>();

	/**
	 * Where reads with no tenant bound may go: the reference tables and the shards whose reference data is current.
	 */
	public interface ReferenceReads {

		/** @return the reference tables, lower case; empty if none are declared */
		Set<String> tables();

		/** @return the shards to try for a tenant-free read, in the order to try them */
		List<String> readShards();

	}

	/**
	 * @param router resolves tenants to directory entries
	 * @param topology resolves shard ids to pools
	 */
	public ShardMultiTenantConnectionProvider(Router router, Topology topology) {
		this(router, topology, null);
	}

	/**
	 * @param router resolves tenants to directory entries
	 * @param topology resolves shard ids to pools
	 * @param ids the tenancy's {@link io.github.shardtenancy.ShardSafeId} ids and id check, or {@code null} for none
	 */
	public ShardMultiTenantConnectionProvider(Router router, Topology topology, @Nullable ShardIds ids) {
		this.router = Objects.requireNonNull(router, "router");
		this.topology = Objects.requireNonNull(topology, "topology");
		this.ids = ids;
	}

	/**
	 * @return the tenancy's {@link io.github.shardtenancy.ShardSafeId} ids and id check, or {@code null} when this
	 * provider was built without them
	 */
	@Override
	public @Nullable ShardIds ids() {
		return this.ids;
	}

	/**
	 * Lets read-only transactions of ACTIVE tenants go to a replica of their shard that is within the maximum lag
	 * (see {@link ReplicaSettings}).
	 * @param settings the settings; routing happens only if they are enabled
	 */
	public void setReplicaSettings(ReplicaSettings settings) {
		this.replicaSettings = settings.enabled() ? settings : null;
	}

	/**
	 * Lets sessions and connections with no tenant bound read reference tables (and nothing else).
	 * @param reads the reference tables and their current shards
	 */
	public void setReferenceReads(ReferenceReads reads) {
		this.referenceReads = reads;
	}

	/**
	 * Sets the role a shard's work with no tenant bound runs as, one that may read the reference tables only
	 * ({@link io.github.shardtenancy.spi.FenceDialect#prepareReferenceRole}).
	 * @param shardId the shard
	 * @param role the role, or {@code null} to run such work as the shard's own role
	 */
	public void setReferenceRole(String shardId, @Nullable String role) {
		if (role == null) {
			this.referenceRoles.remove(shardId);
		}
		else {
			this.referenceRoles.put(shardId, role);
		}
	}

	/**
	 * @param sessionFactory a session factory being built or built
	 * @return its multi-tenant connection provider when it is this library's, or {@code null} (a session factory that
	 * is not on a tenancy, for the integrators to leave alone)
	 */
	static @Nullable ShardMultiTenantConnectionProvider of(SessionFactoryImplementor sessionFactory) {
		MultiTenantConnectionProvider<?> provider = sessionFactory.getServiceRegistry()
			.getService(MultiTenantConnectionProvider.class);
		return (provider != null && provider.isUnwrappableAs(ShardMultiTenantConnectionProvider.class))
				? provider.unwrap(ShardMultiTenantConnectionProvider.class) : null;
	}

	/**
	 * @param tenancy what the {@link EntityTenancyIntegrator} checks when a session factory on this provider is built
	 */
	public void setEntityTenancy(EntityTenancy tenancy) {
		this.entityTenancy = Objects.requireNonNull(tenancy, "tenancy");
	}

	/**
	 * @return what the {@link EntityTenancyIntegrator} checks: by default {@link io.github.shardtenancy.EntityCheck#FAIL}
	 * with no declared reference tables
	 */
	public EntityTenancy entityTenancy() {
		return this.entityTenancy;
	}

	/**
	 * Tells a sink what each tenant connection did (transactions, rows written, time held) when it is released.
	 * @param sink the sink, fast, thread-safe, never throwing; or {@code null} for none (the default)
	 */
	public void setUsageSink(java.util.function.@Nullable Consumer<TenantConnection.Usage> sink) {
		this.usageSink = sink;
	}

	/**
	 * A read-only connection of a shard whose reference data is current, that runs only {@code SELECT}s of
	 * reference tables ({@link ReferenceReadConnection}); the shards are tried in turn, skipping those that cannot
	 * be reached.
	 * @param what what needs the connection, named if no tenant-free connection can be had
	 * @return the connection; close it (or release it through {@link #releaseConnection}) to return it
	 * @throws NoTenantBoundException if no reference tables are declared
	 * @throws ShardUnavailableException if no shard with current reference data can be reached
	 */
	public Connection referenceConnection(String what) throws SQLException {
		ReferenceReads reads = this.referenceReads;
		if (reads == null || reads.tables().isEmpty()) {
			throw new NoTenantBoundException(what);
		}
		SQLException failure = null;
		String lastShard = null;
		for (String shardId : reads.readShards()) {
			Topology.Shard shard = this.topology.find(shardId).orElse(null);
			if (shard == null) {
				continue;
			}
			lastShard = shardId;
			try {
				Connection c = shard.dataSource().getConnection();
				try {
					return ReferenceReadConnection.wrap(c, reads.tables(), shardId, shard.dialect(),
							this.referenceRoles.get(shardId));
				}
				catch (SQLException | RuntimeException ex) {
					c.close();
					throw ex;
				}
			}
			catch (SQLException ex) {
				failure = ex;
			}
		}
		throw new ShardUnavailableException(null, lastShard, -1, failure != null ? failure
				: new SQLException("no shard has current reference data for a read with no tenant bound; run "
						+ "ShardTenancy.referenceTables().repair()"));
	}

	@Override
	public Connection getAnyConnection() throws SQLException {
		return this.topology.anyShard().dataSource().getConnection();
	}

	@Override
	public void releaseAnyConnection(Connection connection) throws SQLException {
		connection.close();
	}

	@Override
	public Connection getConnection(String tenantIdentifier) throws SQLException {
		String bound = TenantContext.current();
		if (TenantIdentifierResolver.NO_TENANT.equals(tenantIdentifier)) {
			if (bound != null) {
				throw TenantSwitchedException.sessionOpenedFor(null, bound);
			}
			return referenceConnection("a shard connection (the Hibernate session was opened without a tenant)");
		}
		if (bound != null && !bound.equals(tenantIdentifier)) {
			throw TenantSwitchedException.sessionOpenedFor(tenantIdentifier, bound);
		}
		DirectoryEntry entry = this.router.route(tenantIdentifier);
		Topology.Shard shard = this.topology.find(entry.shardId()).orElse(null);
		ConnectionGuard.checkSwitch(tenantIdentifier);
		Connection connection = null;
		if (shard != null) {
			Borrowed replica = borrowFromReplica(entry, shard);
			if (replica != null) {
				connection = replica.connection();
				shard = replica.shard();
			}
		}
		for (int attempt = 1; connection == null; attempt++) {
			if (shard != null) {
				try {
					connection = shard.dataSource().getConnection();
					break;
				}
				catch (SQLException ex) {
					if (!isClosed(shard) || attempt >= STALE_SHARD_ATTEMPTS) {
						// Nothing ran: a shard that is down is retryable, and the entry is not stale.
						throw new ShardUnavailableException(tenantIdentifier, shard.id(), entry.version(), ex);
					}
				}
			}
			else if (this.topology.isPending(entry.shardId())) {
				throw new ShardUnavailableException(tenantIdentifier, entry.shardId(), entry.version(),
						Topology.notReachedYet(entry.shardId()));
			}
			else if (attempt >= STALE_SHARD_ATTEMPTS) {
				// Name the directory row that points at the unknown shard: tenant and version.
				throw new UnknownShardException(entry.shardId(), tenantIdentifier, entry.version());
			}
			// The route names a shard whose pool is gone (retired): a stale entry. Read it again, like after a fence
			// rejection, instead of letting "pool closed" reach the caller.
			log.debug("Tenant '{}' routed to shard '{}' at directory version {}, which is no longer in the topology; "
					+ "refreshing the entry", tenantIdentifier, entry.shardId(), entry.version());
			this.router.invalidate(tenantIdentifier);
			entry = this.router.route(tenantIdentifier);
			shard = this.topology.find(entry.shardId()).orElse(null);
		}
		try {
			applyCharacteristics(connection, shard.dialect());
			if (shard.dialect().beginStatement() == null) {
				shard.dialect().begin(connection, tenantIdentifier, entry.version());
			}
			// Else the begin travels with the transaction's first query (or runs on its own before any other statement).
			ReferenceReads reads = this.referenceReads;
			connection = TenantConnection.wrap(connection, shard.dialect(), shard.id(), tenantIdentifier,
					entry.version(), reads != null ? reads.tables() : Set.of());
		}
		catch (SQLException ex) {
			returnToPool(shard, connection);
			if (ShardConnectionLostException.isConnectionFailure(ex)) {
				// A pooled connection the shard's restart cut: the begin was the first statement, nothing ran.
				throw new ShardUnavailableException(tenantIdentifier, shard.id(), entry.version(), ex);
			}
			throw ex;
		}
		catch (RuntimeException ex) {
			returnToPool(shard, connection);
			throw ex;
		}
		ConnectionGuard.acquired(tenantIdentifier, shard.id(), connection);
		this.checkedOut.put(connection, shard);
		return connection;
	}

	/** A connection borrowed from a replica, and the replica as a shard of the provider's bookkeeping. */
	private record Borrowed(Topology.Shard shard, Connection connection) {
	}

	/**
	 * Borrows from a replica of the tenant's shard if replica routing is on, the transaction declared itself
	 * read-only, the tenant is ACTIVE on the shard (no move under way) and a replica is within the maximum lag; a
	 * replica that cannot hand out a connection is marked down and the next one tried.
	 * @return the connection, or {@code null} for the primary
	 */
	private @Nullable Borrowed borrowFromReplica(DirectoryEntry entry, Topology.Shard primary) {
		ReplicaSettings settings = this.replicaSettings;
		if (settings == null || entry.state() != TenantState.ACTIVE || entry.targetShardId() != null
				|| !entry.shardId().equals(primary.id())) {
			return null;
		}
		TransactionCharacteristics.Declaration declaration = TransactionCharacteristics.current();
		if (declaration == null || !declaration.readOnly()) {
			return null;
		}
		List<Replica> replicas = this.topology.replicas(primary.id());
		if (replicas.isEmpty()) {
			return null;
		}
		long now = System.nanoTime();
		// A replica serves the tenant only once it has replayed everything the primary committed before this instance
		// first routed with the entry's current version: the fence row that the version's writer (creation, a move's
		// flip) set right after the directory write is then replayed too when this instance is that writer, so a
		// replica does not reject the tenant as not owned for want of replay. Seen from another instance, the window
		// between the directory write and the fence write rejects on a replica as it does on the primary (40001,
		// retried).
		long seenAt = this.versionSeen.compute(entry.tenantId(),
				(tenant, old) -> old != null && old[0] == entry.version() ? old : new long[] { entry.version(), now })[1];
		long maxLag = settings.maxLag().toNanos();
		for (Replica replica : replicas) {
			if (replica.lagNanos(now) > maxLag || !replica.caughtUpPast(seenAt)) {
				continue;
			}
			try {
				Connection connection = replica.dataSource().getConnection();
				return new Borrowed(new Topology.Shard(primary.id(), replica.dataSource(), primary.dialect(), false),
						connection);
			}
			catch (SQLException ex) {
				replica.down(ex.getMessage());
				log.warn("{} cannot be reached ({}); the primary serves until the lag sampler finds it back", replica,
						ex.getMessage());
			}
		}
		return null;
	}

	@Override
	public void releaseConnection(String tenantIdentifier, Connection connection) throws SQLException {
		Topology.Shard shard = this.checkedOut.remove(connection);
		ConnectionGuard.released(connection);
		java.util.function.Consumer<TenantConnection.Usage> sink = this.usageSink;
		if (sink != null) {
			TenantConnection.Usage usage = TenantConnection.usage(connection);
			if (usage != null) {
				sink.accept(usage);
			}
		}
		if (shard == null) {
			connection.close();
			return;
		}
		returnToPool(shard, connection);
	}

	private static boolean isClosed(Topology.Shard shard) {
		return shard.dataSource() instanceof HikariDataSource pool && pool.isClosed();
	}

	/**
	 * Returns a connection handed out for a shard to its pool with its session variables cleared, or discards it
	 * ({@link Topology.Shard#discard}) when they cannot be cleared.
	 */
	private static void returnToPool(Topology.Shard shard, Connection handedOut) throws SQLException {
		Connection connection = TenantConnection.unwrapPooled(handedOut);
		try {
			shard.dialect().end(connection);
		}
		catch (SQLException | RuntimeException ex) {
			log.warn("Could not clear session variables on a connection of shard '{}'; evicting it: {}", shard.id(),
					ex.getMessage());
			shard.discard(connection);
			return;
		}
		connection.close();
	}

	@Override
	public boolean supportsAggressiveRelease() {
		return false;
	}

	@Override
	public boolean isUnwrappableAs(Class<?> unwrapType) {
		return unwrapType.isInstance(this);
	}

	@Override
	public <T> T unwrap(Class<T> unwrapType) {
		if (unwrapType.isInstance(this)) {
			return unwrapType.cast(this);
		}
		throw new IllegalArgumentException("Cannot unwrap " + getClass().getName() + " as " + unwrapType.getName());
	}

	/**
	 * Applies the innermost {@link TransactionCharacteristics} declaration of this thread, if any, to a connection
	 * just borrowed from a shard's pool: the isolation level through {@link Connection#setTransactionIsolation},
	 * read-only through {@link FenceDialect#beginReadOnly}. HikariCP restores both to the pool's defaults when the
	 * connection is returned.
	 */
	private static void applyCharacteristics(Connection connection, FenceDialect dialect) throws SQLException {
		TransactionCharacteristics.Declaration declaration = TransactionCharacteristics.current();
		if (declaration == null) {
			return;
		}
		if (declaration.isolation() != null) {
			connection.setTransactionIsolation(declaration.isolation());
		}
		if (declaration.readOnly()) {
			dialect.beginReadOnly(connection);
		}
	}

}
