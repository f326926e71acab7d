package io.github.shardtenancy.internal.tasks;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.TenantTaskLeaseLostException;
import io.github.shardtenancy.TenantRouter;
import io.github.shardtenancy.TenantTaskOptions;
import io.github.shardtenancy.TenantTaskProgress;
import io.github.shardtenancy.TenantTaskResult;
import io.github.shardtenancy.TenantTaskResult.Status;
import io.github.shardtenancy.TenantTaskRetry;
import io.github.shardtenancy.TenantTaskRun;
import io.github.shardtenancy.TenantTaskTransaction;
import io.github.shardtenancy.TenantWork;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One run of {@link DefaultTenantTasks#start}: a queue of tenants per shard (the shard each had when the run started),
 * drained by at most {@code perShard} workers per shard on the executor. A named run holds its {@link RunLease},
 * renewed by a heartbeat while it runs and released when it ends; once the lease is lost, no further tenant is
 * committed and the tenants left are {@code FAILED} with a {@link TenantTaskLeaseLostException}. Thread-safe.
 */
final class TaskRun<T> implements TenantTaskRun<T> {

	private static final Logger logger = LoggerFactory.getLogger(TaskRun.class);

	private final TenantTaskOptions options;

	private final TenantWork<T> work;

	private final TenantTaskRetry retry;

	private final DataSource dataSource;

	private final TenantRouter router;

	private final DefaultTenantTasks.Outcomes outcomes;

	/** The run's lease; {@code null} for an unnamed run. */
	private final RunLease lease;

	/** Told once when the run ended. */
	private final Runnable ended;

	private volatile ScheduledFuture<?> heartbeat;

	private final Map<String, TenantTaskResult<T>> results = new ConcurrentHashMap<>();

	private final CompletableFuture<Map<String, TenantTaskResult<T>>> completion = new CompletableFuture<>();

	private final AtomicInteger remaining = new AtomicInteger();

	private volatile Set<String> completed = Set.of();

	private volatile boolean stopped;

	private int total;

	private ExecutorService ownExecutor;

	TaskRun(TenantTaskOptions options, TenantWork<T> work, TenantTaskRetry retry, DataSource dataSource,
			TenantRouter router, DefaultTenantTasks.Outcomes outcomes, RunLease lease, Runnable ended) {
		this.options = options;
		this.work = work;
		this.retry = retry;
		this.dataSource = dataSource;
		this.router = router;
		this.outcomes = outcomes;
		this.lease = lease;
		this.ended = ended;
	}

	/**
	 * @param tenants tenant id to its shard at the start ({@code null}: not in the directory)
	 * @param completed the tenants an earlier run of the same name completed
	 * @param heartbeats runs the lease's heartbeat
	 */
	void start(Map<String, String> tenants, Set<String> completed, ScheduledExecutorService heartbeats) {
		this.completed = completed;
		if (this.lease != null && !tenants.isEmpty()) {
			long every = this.lease.heartbeat().toMillis();
			this.heartbeat = heartbeats.scheduleAtFixedRate(this.lease::renew, every, every, TimeUnit.MILLISECONDS);
		}
		this.total = tenants.size();
		this.remaining.set(tenants.size());
		Map<String, Queue<String>> queues = new LinkedHashMap<>();
		tenants.forEach((tenantId, shardId) -> queues
			.computeIfAbsent((shardId != null) ? shardId : "", (key) -> new ConcurrentLinkedQueue<>())
			.add(tenantId));
		if (tenants.isEmpty()) {
			finish();
			return;
		}
		Executor executor = this.options.executor();
		if (executor == null) {
			AtomicInteger count = new AtomicInteger();
			String prefix = "shard-tenancy-task-" + ((this.options.name() != null) ? this.options.name() : "run") + "-";
			this.ownExecutor = Executors.newCachedThreadPool((task) -> {
				Thread thread = new Thread(task, prefix + count.incrementAndGet());
				thread.setDaemon(true);
				return thread;
			});
			executor = this.ownExecutor;
		}
		for (Queue<String> queue : queues.values()) {
			int workers = Math.min(this.options.perShard(), queue.size());
			for (int i = 0; i < workers; i++) {
				executor.execute(() -> drain(queue));
			}
		}
	}

	private void drain(Queue<String> queue) {
		String tenantId;
		while ((tenantId = queue.poll()) != null) {
			TenantTaskResult<T> result;
			String lost = (this.lease != null) ? this.lease.lost() : null;
			if (lost != null) {
				result = new TenantTaskResult<>(tenantId, Status.FAILED, null, null,
						this.lease.refused(tenantId, null, lost));
			}
			else if (this.stopped) {
				result = new TenantTaskResult<>(tenantId, Status.NOT_RUN, null, null, null);
			}
			else {
				result = runTenant(tenantId);
			}
			this.results.put(tenantId, result);
			if (this.remaining.decrementAndGet() == 0) {
				finish();
			}
		}
	}

	private TenantTaskResult<T> runTenant(String tenantId) {
		if (this.completed.contains(tenantId)) {
			return new TenantTaskResult<>(tenantId, Status.ALREADY_DONE, null, null, null);
		}
		TenantTaskResult<T> result;
		try (TenantContext.Scope scope = TenantContext.unbind(); TenantContext.Scope bound = TenantContext.bind(tenantId)) {
			Attempt<T> attempt = this.retry.call(() -> attempt(tenantId));
			String shardId = this.router.cached(tenantId).map(DirectoryEntry::shardId).orElse(null);
			result = attempt.alreadyDone ? new TenantTaskResult<>(tenantId, Status.ALREADY_DONE, null, shardId, null)
					: new TenantTaskResult<>(tenantId, Status.DONE, attempt.value, shardId, null);
		}
		catch (Throwable ex) {
			// Any failure, an Error included, is this tenant's outcome: the other tenants go on.
			String shardId = this.router.cached(tenantId).map(DirectoryEntry::shardId).orElse(null);
			result = new TenantTaskResult<>(tenantId, Status.FAILED, null, shardId, ex);
		}
		record(result);
		return result;
	}

	/**
	 * One transaction: the mark is checked, the work runs, the mark is inserted with the run's fencing token, the
	 * lease is confirmed, all committed together, in the options' transaction or the library's own.
	 */
	private Attempt<T> attempt(String tenantId) throws Exception {
		TenantWork<Attempt<T>> body = (tenant, c) -> {
			String name = this.options.name();
			if (name != null) {
				String lost = this.lease.lost();
				if (lost != null) {
					throw this.lease.refused(tenant, shardOf(tenant), lost);
				}
				long marked = markToken(c, name, tenant);
				if (marked > this.lease.token()) {
					String why = "the tenant's completion mark carries token " + marked + " of a newer run";
					this.lease.lose(why);
					throw this.lease.refused(tenant, shardOf(tenant), why);
				}
				if (marked >= 0) {
					return new Attempt<>(null, true);
				}
			}
			T value = this.work.run(tenant, c);
			if (name != null) {
				try (PreparedStatement s = c.prepareStatement(DefaultTenantTasks.INSERT_MARK)) {
					s.setString(1, name);
					s.setString(2, tenant);
					s.setTimestamp(3, Timestamp.from(Instant.now()));
					s.setLong(4, this.lease.token());
					s.executeUpdate();
				}
				catch (SQLException ex) {
					// A mark inserted meanwhile (its key): by a newer run, if this one lost its lease.
					this.lease.confirm(tenant, shardOf(tenant));
					throw ex;
				}
				// The fence of the lease: only the run that holds it now commits.
				this.lease.confirm(tenant, shardOf(tenant));
			}
			return new Attempt<>(value, false);
		};
		TenantTaskTransaction transaction = this.options.transaction();
		return (transaction != null) ? transaction.execute(tenantId, body) : ownTransaction(tenantId, body);
	}

	/** The library's transaction: a connection of the tenant-routing data source, auto-commit off. */
	private <R> R ownTransaction(String tenantId, TenantWork<R> body) throws Exception {
		try (Connection c = this.dataSource.getConnection()) {
			c.setAutoCommit(false);
			boolean committed = false;
			try {
				R result = body.run(tenantId, c);
				c.commit();
				committed = true;
				return result;
			}
			finally {
				if (!committed) {
					rollbackQuietly(c);
				}
			}
		}
	}

	/** @return the token of the tenant's mark on its shard (0 for a mark without one), or -1 if it has none */
	private static long markToken(Connection c, String name, String tenantId) throws SQLException {
		try (PreparedStatement s = c.prepareStatement(DefaultTenantTasks.SELECT_MARK)) {
			s.setString(1, name);
			s.setString(2, tenantId);
			try (ResultSet rs = s.executeQuery()) {
				if (!rs.next()) {
					return -1;
				}
				long token = rs.getLong(1);
				return rs.wasNull() ? 0 : token;
			}
		}
	}

	private String shardOf(String tenantId) {
		return this.router.cached(tenantId).map(DirectoryEntry::shardId).orElse(null);
	}

	private static void rollbackQuietly(Connection c) {
		try {
			c.rollback();
		}
		catch (SQLException ex) {
			// The transaction is gone with the connection; nothing was committed.
		}
	}

	private void record(TenantTaskResult<T> result) {
		String name = this.options.name();
		if (name == null || result.status() == Status.ALREADY_DONE
				|| result.error() instanceof TenantTaskLeaseLostException) {
			// A run that lost its lease writes no outcome: the run that holds it now may have written DONE.
			return;
		}
		try {
			this.outcomes.record(name, result.tenantId(), (result.status() == Status.DONE) ? "DONE" : "FAILED",
					result.shardId(), (result.error() != null) ? String.valueOf(result.error()) : null);
		}
		catch (SQLException | RuntimeException ex) {
			// The shard's mark, committed with the work, still keeps a resumed run from running the tenant again.
			logger.warn("Run '{}': outcome {} of tenant '{}' not recorded in the directory: {}", name,
					result.status(), result.tenantId(), ex.toString());
		}
	}

	private void finish() {
		if (this.ownExecutor != null) {
			this.ownExecutor.shutdown();
		}
		endLease();
		this.completion.complete(results());
	}

	/** Stops the heartbeat and ends the lease, so that the name can be resumed at once; then tells the owner. */
	private void endLease() {
		ScheduledFuture<?> beat = this.heartbeat;
		if (beat != null) {
			beat.cancel(false);
		}
		if (this.lease != null) {
			this.lease.release();
		}
		this.ended.run();
	}

	/**
	 * The instance closes: the run commits no further tenant (the lease is lost for it, so a transaction still running
	 * is rolled back at its end) and its lease is ended, so that another instance can resume the name at once.
	 */
	void close() {
		this.stopped = true;
		if (this.lease != null) {
			this.lease.lose("the instance was closed");
		}
		endLease();
	}

	@Override
	public String name() {
		return this.options.name();
	}

	@Override
	public TenantTaskProgress progress() {
		int done = 0;
		int alreadyDone = 0;
		int failed = 0;
		int notRun = 0;
		for (TenantTaskResult<T> result : this.results.values()) {
			switch (result.status()) {
				case DONE -> done++;
				case ALREADY_DONE -> alreadyDone++;
				case FAILED -> failed++;
				case NOT_RUN -> notRun++;
			}
		}
		return new TenantTaskProgress(this.total, done, alreadyDone, failed, notRun,
				this.total - done - alreadyDone - failed - notRun);
	}

	@Override
	public Map<String, TenantTaskResult<T>> results() {
		return Collections.unmodifiableMap(new LinkedHashMap<>(this.results));
	}

	@Override
	public CompletableFuture<Map<String, TenantTaskResult<T>>> completion() {
		return this.completion;
	}

	@Override
	public Map<String, TenantTaskResult<T>> await() {
		try {
			return this.completion.get();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for run '" + name() + "'", ex);
		}
		catch (ExecutionException ex) {
			throw new IllegalStateException(ex.getCause());
		}
	}

	@Override
	public boolean await(Duration timeout) {
		try {
			this.completion.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
			return true;
		}
		catch (TimeoutException ex) {
			return false;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for run '" + name() + "'", ex);
		}
		catch (ExecutionException ex) {
			throw new IllegalStateException(ex.getCause());
		}
	}

	@Override
	public void stop() {
		this.stopped = true;
	}

	private record Attempt<T>(T value, boolean alreadyDone) {
	}

}
