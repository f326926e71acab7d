package io.github.shardtenancy.internal.tasks;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Supplier;

import javax.sql.DataSource;

import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.DirectoryUnavailableException;
import io.github.shardtenancy.ShardQueryResult;
import io.github.shardtenancy.ShardRowMapper;
import io.github.shardtenancy.ShardTopology;
import io.github.shardtenancy.ShardRecord;
import io.github.shardtenancy.ShardState;
import io.github.shardtenancy.ShardUnavailableException;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.TenantState;
import io.github.shardtenancy.TenantTable;
import io.github.shardtenancy.TenantTaskOptions;
import io.github.shardtenancy.TenantTaskRetry;
import io.github.shardtenancy.TenantTaskRun;
import io.github.shardtenancy.TenantTaskRunLeasedException;
import io.github.shardtenancy.TenantTasks;
import io.github.shardtenancy.TenantWork;
import io.github.shardtenancy.TenantRouter;
import io.github.shardtenancy.UnknownShardException;
import io.github.shardtenancy.retry.RetrySettings;
import io.github.shardtenancy.retry.ShardTenancyRetry;
import io.github.shardtenancy.internal.jdbc.StatementCount;
import io.github.shardtenancy.spi.FenceDialect;
import io.github.shardtenancy.spi.ShardTenancyObserver;

/**
 * The library's {@link TenantTasks}, over the public API of a tenancy: the directory snapshot for the tenants, the
 * tenant-routing {@link DataSource} for their transactions, the shard pools for the completion marks and the
 * scatter-gather queries. Thread-safe.
 */
public final class DefaultTenantTasks implements TenantTasks, AutoCloseable {

	/**
	 * The completion marks of named runs, a tenant table of the library's: the fence checks its writes, and a move
	 * copies, catches up, verifies and cleans a tenant's marks with its other rows, so that the mark stays with the
	 * tenant's data on the shard that owns it.
	 */
	public static final TenantTable MARKS = new TenantTable("shard_task_log", "tenant_id");

	static final String SELECT_MARKS = "SELECT tenant_id FROM shard_task_log WHERE run_name = ?";

	static final String SELECT_MARK = "SELECT token FROM shard_task_log WHERE run_name = ? AND tenant_id = ?";

	static final String INSERT_MARK = "INSERT INTO shard_task_log (run_name, tenant_id, completed_at, token) "
			+ "VALUES (?, ?, ?, ?)";

	private static final String SELECT_DONE = "SELECT tenant_id FROM shard_task_tenant WHERE run_name = ? AND status = 'DONE'";

	private static final String UPDATE_OUTCOME = "UPDATE shard_task_tenant SET status = ?, shard_id = ?, error = ?, "
			+ "finished_at = ? WHERE run_name = ? AND tenant_id = ?";

	private static final String INSERT_OUTCOME = "INSERT INTO shard_task_tenant (run_name, tenant_id, status, shard_id, "
			+ "error, finished_at) VALUES (?, ?, ?, ?, ?, ?)";

	private final TenantAdmin admin;

	private final TenantRouter router;

	private final ShardTopology topology;

	private final DataSource tenantDataSource;

	private final DataSource directoryDataSource;

	private final ShardTenancyObserver observer;

	private final Function<String, FenceDialect> dialects;

	/** Runs the shards' halves of scatter-gather queries; daemon threads, created on first use. */
	private final AtomicReference<ExecutorService> queryExecutor = new AtomicReference<>();

	/** Runs the heartbeats of the named runs' leases; a daemon thread, created on first use. */
	private final AtomicReference<ScheduledExecutorService> heartbeats = new AtomicReference<>();

	/** The named runs not ended yet, closed with this instance. */
	private final Set<TaskRun<?>> running = ConcurrentHashMap.newKeySet();

	private volatile boolean closed;

	/**
	 * @param admin the directory snapshot
	 * @param router routes and invalidates for the default retry
	 * @param topology the shard pools
	 * @param tenantDataSource the tenant-routing data source
	 * @param directoryDataSource the directory database
	 * @param observer told of the default retry's attempts
	 * @param dialects the fence dialect of each shard, whose maintenance mark lets a scatter-gather query read every
	 * tenant's rows under row-level security
	 */
	public DefaultTenantTasks(TenantAdmin admin, TenantRouter router, ShardTopology topology,
			DataSource tenantDataSource, DataSource directoryDataSource, ShardTenancyObserver observer,
			Function<String, FenceDialect> dialects) {
		this.admin = admin;
		this.router = router;
		this.topology = topology;
		this.tenantDataSource = tenantDataSource;
		this.directoryDataSource = directoryDataSource;
		this.observer = observer;
		this.dialects = dialects;
	}

	@Override
	public <T> TenantTaskRun<T> start(TenantTaskOptions options, TenantWork<T> work) {
		Objects.requireNonNull(options, "options");
		Objects.requireNonNull(work, "work");
		if (options.shardId() != null && !this.topology.contains(options.shardId())) {
			throw new UnknownShardException(options.shardId(), null, this.router.version());
		}
		if (this.closed) {
			throw new IllegalStateException("The tenant tasks of this instance are closed");
		}
		RunLease lease = (options.name() != null) ? acquire(options) : null;
		try {
			Map<String, String> tenants = enumerate(options);
			Set<String> completed = (lease != null) ? completed(options.name()) : Set.of();
			TenantTaskRetry retry = (options.retry() != null) ? options.retry()
					: new ShardTenancyRetry(this.router::invalidate, RetrySettings.defaults(), this.observer)::call;
			AtomicReference<TaskRun<T>> self = new AtomicReference<>();
			TaskRun<T> run = new TaskRun<>(options, work, retry, this.tenantDataSource, this.router,
					new Outcomes(this.directoryDataSource), lease, () -> this.running.remove(self.get()));
			self.set(run);
			if (lease != null) {
				this.running.add(run);
			}
			run.start(tenants, completed, (lease != null) ? heartbeats() : null);
			if (this.closed) {
				run.close();
			}
			return run;
		}
		catch (RuntimeException | Error ex) {
			if (lease != null) {
				lease.release();
			}
			throw ex;
		}
	}

	/**
	 * @return the lease of a named run, taken in the directory
	 * @throws TenantTaskRunLeasedException if another run of the name holds it
	 * @throws DirectoryUnavailableException if the directory cannot be read or written
	 */
	private RunLease acquire(TenantTaskOptions options) {
		try {
			return RunLease.acquire(this.directoryDataSource, Clock.systemUTC(), options.name(), options.lease());
		}
		catch (SQLException ex) {
			throw new DirectoryUnavailableException(null, this.router.version(), ex);
		}
	}

	/** @return tenant id to its shard at the start, in directory order within each shard */
	private Map<String, String> enumerate(TenantTaskOptions options) {
		Map<String, DirectoryEntry> entries = new TreeMap<>();
		try {
			this.admin.snapshot((entry) -> entries.put(entry.tenantId(), entry));
		}
		catch (RuntimeException ex) {
			if (ex instanceof DirectoryUnavailableException) {
				throw ex;
			}
			throw new DirectoryUnavailableException(null, this.router.version(), ex);
		}
		Map<String, String> tenants = new LinkedHashMap<>();
		if (options.tenantIds() != null) {
			for (String tenantId : new LinkedHashSet<>(options.tenantIds())) {
				DirectoryEntry entry = entries.get(tenantId);
				tenants.put(tenantId, (entry != null) ? entry.shardId() : null);
			}
			return tenants;
		}
		for (DirectoryEntry entry : entries.values()) {
			if (entry.state() != TenantState.DELETED
					&& (options.shardId() == null || options.shardId().equals(entry.shardId()))) {
				tenants.put(entry.tenantId(), entry.shardId());
			}
		}
		return tenants;
	}

	/**
	 * @return the tenants an earlier run of this name completed: DONE in the directory, or marked on any shard
	 * @throws ShardUnavailableException if a shard's marks cannot be read, or a shard registered ACTIVE by another
	 * instance is not in this instance's topology yet
	 */
	private Set<String> completed(String name) {
		Set<String> completed = new HashSet<>();
		try {
			readTenants(this.directoryDataSource, SELECT_DONE, name, completed);
		}
		catch (SQLException ex) {
			throw new DirectoryUnavailableException(null, this.router.version(), ex);
		}
		for (ShardRecord record : this.admin.shards()) {
			if (record.state() == ShardState.ACTIVE && !this.topology.contains(record.shardId())) {
				throw new ShardUnavailableException(null, record.shardId(), this.router.version(),
						new IllegalStateException("Shard '" + record.shardId() + "' is registered ACTIVE but not in "
								+ "this instance's topology, so its completion marks of run '" + name + "' cannot be "
								+ "read; call TenantAdmin.syncShards() and resume again"));
			}
		}
		for (String shardId : this.topology.shardIds()) {
			try {
				readMarks(this.topology.dataSource(shardId), this.dialects.apply(shardId), name, completed);
			}
			catch (SQLException ex) {
				throw new ShardUnavailableException(null, shardId, this.router.version(), ex);
			}
		}
		return completed;
	}

	/** Adds to {@code into} the tenant ids a query by run name returns. */
	private static void readTenants(DataSource dataSource, String sql, String name, Set<String> into)
			throws SQLException {
		try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(sql)) {
			s.setString(1, name);
			try (ResultSet rs = s.executeQuery()) {
				while (rs.next()) {
					into.add(rs.getString(1));
				}
			}
		}
	}

	/**
	 * Adds to {@code into} the tenants marked for a run on a shard, read as library maintenance: the marks are a
	 * tenant table, which row-level security would otherwise hide from a connection with no tenant bound.
	 */
	private static void readMarks(DataSource shard, FenceDialect dialect, String name, Set<String> into)
			throws SQLException {
		try (Connection c = shard.getConnection()) {
			dialect.beginMaintenance(c);
			try (PreparedStatement s = c.prepareStatement(SELECT_MARKS)) {
				s.setString(1, name);
				try (ResultSet rs = s.executeQuery()) {
					while (rs.next()) {
						into.add(rs.getString(1));
					}
				}
			}
			finally {
				c.rollback();
				c.setAutoCommit(true);
				dialect.releaseSession(c);
			}
		}
	}

	@Override
	public <T> ShardQueryResult<T> queryAllShards(String sql, List<?> parameters, ShardRowMapper<T> mapper,
			Duration timeout) {
		Objects.requireNonNull(sql, "sql");
		Objects.requireNonNull(parameters, "parameters");
		Objects.requireNonNull(mapper, "mapper");
		Objects.requireNonNull(timeout, "timeout");
		if (timeout.isNegative() || timeout.isZero()) {
			throw new IllegalArgumentException("timeout must be positive, was " + timeout);
		}
		String first = sql.stripLeading().split("[\\s(]", 2)[0].toUpperCase(Locale.ROOT);
		if (!first.equals("SELECT") && !first.equals("WITH")) {
			throw new IllegalArgumentException(
					"queryAllShards runs read-only queries: the statement must start with SELECT or WITH, was '"
							+ sql.strip() + "'");
		}
		long startNanos = System.nanoTime();
		long deadline = startNanos + timeout.toNanos();
		ExecutorService executor = queryExecutor();
		Map<String, ShardQuery<T>> queries = new LinkedHashMap<>();
		for (String shardId : this.topology.shardIds()) {
			ShardQuery<T> query = new ShardQuery<>(shardId, sql, parameters, mapper, timeout);
			query.future = CompletableFuture.supplyAsync(() -> query.run(this.topology.dataSource(shardId), this.dialects.apply(shardId)), executor);
			queries.put(shardId, query);
		}
		List<T> rows = new ArrayList<>();
		Map<String, ShardQueryResult.Status> statuses = new LinkedHashMap<>();
		// A text the shard's driver splits into several statements, refused on every shard before it runs.
		IllegalArgumentException notOne = null;
		for (ShardQuery<T> query : queries.values()) {
			long left = deadline - System.nanoTime();
			try {
				List<T> shardRows = query.future.get(Math.max(0, left), TimeUnit.NANOSECONDS);
				rows.addAll(shardRows);
				statuses.put(query.shardId,
						new ShardQueryResult.Status(query.shardId, ShardQueryResult.Outcome.OK, shardRows.size(), null));
			}
			catch (TimeoutException ex) {
				query.cancel();
				statuses.put(query.shardId,
						new ShardQueryResult.Status(query.shardId, ShardQueryResult.Outcome.TIMED_OUT, 0, null));
			}
			catch (ExecutionException ex) {
				if (ex.getCause() instanceof IllegalArgumentException refused) {
					notOne = refused;
				}
				statuses.put(query.shardId, new ShardQueryResult.Status(query.shardId,
						ShardQueryResult.Outcome.FAILED, 0, ex.getCause()));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				query.cancel();
				statuses.put(query.shardId, new ShardQueryResult.Status(query.shardId,
						ShardQueryResult.Outcome.FAILED, 0, ex));
			}
		}
		if (notOne != null) {
			throw new IllegalArgumentException(notOne.getMessage(), notOne);
		}
		return new ShardQueryResult<>(rows, statuses, Duration.ofNanos(System.nanoTime() - startNanos));
	}

	private ExecutorService queryExecutor() {
		return lazily(this.queryExecutor, () -> {
			AtomicInteger count = new AtomicInteger();
			return Executors.newCachedThreadPool((task) -> daemon(task, "shard-tenancy-query-" + count.incrementAndGet()));
		});
	}

	private ScheduledExecutorService heartbeats() {
		return lazily(this.heartbeats,
				() -> Executors.newSingleThreadScheduledExecutor((task) -> daemon(task, "shard-tenancy-task-lease")));
	}

	/** @return the executor held, or one created and held now (of two threads creating one, one is kept) */
	private static <E extends ExecutorService> E lazily(AtomicReference<E> held, Supplier<E> create) {
		E executor = held.get();
		while (executor == null) {
			E created = create.get();
			if (held.compareAndSet(null, created)) {
				return created;
			}
			created.shutdown();
			executor = held.get();
		}
		return executor;
	}

	private static Thread daemon(Runnable task, String name) {
		Thread thread = new Thread(task, name);
		thread.setDaemon(true);
		return thread;
	}

	/**
	 * Stops the threads of the scatter-gather queries (queries still running are interrupted), and closes the named
	 * runs still going: each commits no further tenant and ends its lease, so that another instance resumes it.
	 */
	@Override
	public void close() {
		this.closed = true;
		for (TaskRun<?> run : List.copyOf(this.running)) {
			run.close();
		}
		ExecutorService executor = this.queryExecutor.getAndSet(null);
		if (executor != null) {
			executor.shutdownNow();
		}
		ScheduledExecutorService beats = this.heartbeats.getAndSet(null);
		if (beats != null) {
			beats.shutdownNow();
		}
	}

	/** One shard's half of a scatter-gather query. */
	private static final class ShardQuery<T> {

		final String shardId;

		private final String sql;

		private final List<?> parameters;

		private final ShardRowMapper<T> mapper;

		private final Duration timeout;

		private volatile PreparedStatement statement;

		private volatile boolean cancelled;

		CompletableFuture<List<T>> future;

		ShardQuery(String shardId, String sql, List<?> parameters, ShardRowMapper<T> mapper, Duration timeout) {
			this.shardId = shardId;
			this.sql = sql;
			this.parameters = parameters;
			this.mapper = mapper;
			this.timeout = timeout;
		}

		List<T> run(DataSource dataSource, FenceDialect dialect) {
			try (Connection c = dataSource.getConnection()) {
				if (!StatementCount.isOne(dialect, c, this.sql)) {
					throw new IllegalArgumentException("queryAllShards runs one read-only query: the SQL must hold "
							+ "one statement as the driver of shard '" + this.shardId + "' reads it (a ';' outside "
							+ "quotes and comments starts another, which could write), was '" + this.sql.strip()
							+ "'");
				}
				c.setReadOnly(true);
				dialect.beginMaintenance(c);
				try (PreparedStatement s = c.prepareStatement(this.sql)) {
					this.statement = s;
					if (this.cancelled) {
						throw new SQLException("cancelled: the time limit passed");
					}
					// Whole seconds, rounded up: the driver's own limit backs the caller's deadline.
					s.setQueryTimeout((int) Math.max(1, (this.timeout.toMillis() + 999) / 1000));
					for (int i = 0; i < this.parameters.size(); i++) {
						s.setObject(i + 1, this.parameters.get(i));
					}
					List<T> rows = new ArrayList<>();
					try (ResultSet rs = s.executeQuery()) {
						while (rs.next()) {
							rows.add(this.mapper.map(this.shardId, rs));
						}
					}
					return rows;
				}
				finally {
					this.statement = null;
					c.rollback();
					c.setReadOnly(false);
					c.setAutoCommit(true);
					dialect.releaseSession(c);
				}
			}
			catch (SQLException ex) {
				throw new ShardUnavailableException(null, this.shardId, -1, ex);
			}
		}

		void cancel() {
			this.cancelled = true;
			PreparedStatement s = this.statement;
			if (s != null) {
				try {
					s.cancel();
				}
				catch (SQLException ex) {
					// The statement ended meanwhile; nothing to cancel.
				}
			}
			this.future.cancel(true);
		}

	}

	/** Records the outcome of each tenant of a named run in the directory, after its shard transaction. */
	static final class Outcomes {

		private final DataSource directory;

		Outcomes(DataSource directory) {
			this.directory = directory;
		}

		/** @throws SQLException if the directory cannot be written */
		void record(String name, String tenantId, String status, String shardId, String error) throws SQLException {
			Timestamp now = Timestamp.from(Instant.now());
			String cut = (error != null && error.length() > 2000) ? error.substring(0, 2000) : error;
			try (Connection c = this.directory.getConnection()) {
				if (update(c, UPDATE_OUTCOME, status, shardId, cut, now, name, tenantId) == 0) {
					update(c, INSERT_OUTCOME, name, tenantId, status, shardId, cut, now);
				}
			}
		}

		private static int update(Connection c, String sql, Object... values) throws SQLException {
			try (PreparedStatement s = c.prepareStatement(sql)) {
				for (int i = 0; i < values.length; i++) {
					s.setObject(i + 1, values[i]);
				}
				return s.executeUpdate();
			}
		}

	}

}
