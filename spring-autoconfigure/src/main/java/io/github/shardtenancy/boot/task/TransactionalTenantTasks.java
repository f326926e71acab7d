package io.github.shardtenancy.boot.task;

import java.sql.Connection;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Function;

import javax.sql.DataSource;

import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.TenantTaskOptions;
import io.github.shardtenancy.TenantTaskRun;
import io.github.shardtenancy.TenantTaskTransaction;
import io.github.shardtenancy.TenantTasks;
import io.github.shardtenancy.TenantWork;
import io.github.shardtenancy.boot.retry.ShardTenancyRetry;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * {@link TenantTasks} runs whose work is the application's own code: each tenant's work is called with the tenant
 * bound, inside a transaction of the application's {@link PlatformTransactionManager}, inside the
 * {@link ShardTenancyRetry}. Spring Data repositories, {@code @Transactional} services (which join the transaction with
 * the default {@code REQUIRED} propagation) and {@code JdbcTemplate} on the application's {@code DataSource} all run
 * in that one transaction, on the tenant's shard.
 *
 * <pre>{@code
 * TenantTaskRun<Void> run = tasks.forEachTenant(TenantTaskOptions.named("close-day-" + today), tenant -> orders.closeDay());
 * Map<String, TenantTaskResult<Void>> results = run.await();
 * }</pre>
 *
 * <p>Per tenant and attempt: the tenant is bound ({@link TenantContext}), the retry runs a
 * {@link TransactionTemplate} of the transaction manager, the work runs in it, and for a named run the completion
 * mark is looked up and inserted on the same transaction's connection (the {@link TenantTaskTransaction} seam of the
 * core run), so the mark commits if and only if the work does; the transaction commits; the tenant is unbound (the
 * thread's previous binding, if any, comes back). Everything else is {@link TenantTasks#start}: which tenants, the
 * parallelism per shard, the executor, the per-tenant outcomes ({@code TenantTaskResult}), stopping, resuming a named
 * run, and recording its outcomes in the directory.
 *
 * <ul>
 * <li><b>Retry</b>: a fence rejection (the tenant moved or was frozen meanwhile; SQLSTATE 40001 on PostgreSQL), at any
 * statement or at the commit, rolls the attempt back and runs the work again on the fresh route, in a fresh
 * transaction and persistence context; the work therefore may run more than once, but one attempt commits. Work
 * that commits a transaction of its own inside an attempt ({@code REQUIRES_NEW}) is not re-run: the tenant fails with
 * {@link io.github.shardtenancy.UnsafeToRerunException}, as {@link ShardTenancyRetry} describes. Options that name
 * their own retry ({@link TenantTaskOptions#retry}) keep it.</li>
 * <li><b>Failures are per tenant</b>: an exception of the work (after the retries) rolls its transaction back and is
 * the tenant's {@code FAILED} outcome, with that exception as its error; the others go on.</li>
 * <li><b>A new transaction per tenant and attempt</b> ({@code REQUIRES_NEW}): it never joins a transaction of the
 * thread the executor runs it on. The run's own threads have none; an executor that runs tasks on a calling thread
 * inside a transaction suspends that transaction meanwhile, and the retry then runs each attempt once (only the
 * outermost boundary retries).</li>
 * <li><b>One connection per tenant</b>: the mark runs on the transaction manager's connection to the tenant-routing
 * {@code DataSource}; no second connection is opened. A transaction manager that binds no JDBC connection for that
 * {@code DataSource} (neither a {@code JpaTransactionManager} nor a {@code DataSourceTransactionManager} on it) fails
 * each tenant with an {@link IllegalStateException} saying so, before any work runs.</li>
 * </ul>
 *
 * <p>Immutable and thread-safe: one instance serves any number of runs at once.
 */
public class TransactionalTenantTasks {

	private final TenantTasks tasks;

	private final ShardTenancyRetry retry;

	private final TransactionTemplate transactionTemplate;

	private final DataSource dataSource;

	/**
	 * @param tasks runs the tenants (the {@code TenantTasks} bean); never {@code null}
	 * @param retry the retry of each tenant's transaction (the {@code ShardTenancyRetry} bean); never {@code null}
	 * @param transactionManager the application's transaction manager, whose transactions bind a JDBC connection of
	 * {@code dataSource}; never {@code null}
	 * @param dataSource the tenant-routing {@code DataSource} the transaction manager's transactions use (with Boot,
	 * the {@code DataSource} bean); never {@code null}
	 * @throws NullPointerException if an argument is {@code null}
	 */
	public TransactionalTenantTasks(TenantTasks tasks, ShardTenancyRetry retry,
			PlatformTransactionManager transactionManager, DataSource dataSource) {
		this.tasks = Objects.requireNonNull(tasks, "tasks");
		this.retry = Objects.requireNonNull(retry, "retry");
		this.transactionTemplate = new TransactionTemplate(
				Objects.requireNonNull(transactionManager, "transactionManager"));
		// A tenant's transaction never joins one of the thread it runs on (an executor running tasks on the caller's
		// thread, inside a transaction of another tenant): it is the tenant's own.
		this.transactionTemplate.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
		this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
	}

	/**
	 * Starts a run in the background that calls {@code work} for every tenant the options cover, each in its own
	 * transaction of the application's transaction manager.
	 * @param options the tenants and the run's name, parallelism and executor; never {@code null}
	 * @param work the work for one tenant, given the tenant id (also bound with {@link TenantContext}); it must not
	 * commit or roll back the transaction itself; never {@code null}
	 * @return the running run; its results have {@code null} values; never {@code null}
	 * @throws io.github.shardtenancy.DirectoryUnavailableException as {@link TenantTasks#start}
	 * @throws io.github.shardtenancy.ShardUnavailableException as {@link TenantTasks#start}
	 * @throws io.github.shardtenancy.UnknownShardException as {@link TenantTasks#start}
	 * @throws java.util.concurrent.RejectedExecutionException as {@link TenantTasks#start}
	 */
	public TenantTaskRun<Void> forEachTenant(TenantTaskOptions options, Consumer<String> work) {
		Objects.requireNonNull(work, "work");
		return mapEachTenant(options, (tenantId) -> {
			work.accept(tenantId);
			return null;
		});
	}

	/**
	 * Like {@link #forEachTenant}, for work that returns a result per tenant (a count, a report line): each
	 * {@code DONE} outcome carries what the work returned.
	 * @param options the tenants and the run's name, parallelism and executor; never {@code null}
	 * @param work the work for one tenant, given the tenant id (also bound with {@link TenantContext}); its result
	 * may be {@code null}; never {@code null}
	 * @param <T> the result type
	 * @return the running run; never {@code null}
	 * @throws io.github.shardtenancy.DirectoryUnavailableException as {@link TenantTasks#start}
	 * @throws io.github.shardtenancy.ShardUnavailableException as {@link TenantTasks#start}
	 * @throws io.github.shardtenancy.UnknownShardException as {@link TenantTasks#start}
	 * @throws java.util.concurrent.RejectedExecutionException as {@link TenantTasks#start}
	 */
	public <T> TenantTaskRun<T> mapEachTenant(TenantTaskOptions options, Function<String, ? extends T> work) {
		Objects.requireNonNull(options, "options");
		Objects.requireNonNull(work, "work");
		TenantTaskOptions applied = (options.retry() != null) ? options : options.retry(this.retry::call);
		applied = (options.transaction() != null) ? applied : applied.transaction(this::inTransaction);
		// The connection is the transaction's own: the application's code reaches it through its repositories,
		// services and JdbcTemplate, not through this parameter.
		return this.tasks.start(applied, (tenantId, connection) -> work.apply(tenantId));
	}

	/**
	 * The core run's attempt (completion mark and work) in a transaction of the application's transaction manager,
	 * on the connection that transaction bound for the tenant-routing {@code DataSource}.
	 */
	private <T> T inTransaction(String tenantId, TenantWork<T> body) throws Exception {
		try {
			return this.transactionTemplate.execute((status) -> {
				Connection connection = transactionConnection();
				try {
					return body.run(tenantId, connection);
				}
				catch (RuntimeException ex) {
					throw ex;
				}
				catch (Exception ex) {
					throw new CheckedFailure(ex);
				}
				finally {
					DataSourceUtils.releaseConnection(connection, this.dataSource);
				}
			});
		}
		catch (CheckedFailure ex) {
			throw ex.failure;
		}
	}

	/**
	 * @return the JDBC connection of the transaction that is running
	 * @throws IllegalStateException if the transaction manager bound none for the tenant-routing {@code DataSource}
	 * (taking one would open a second transaction, which would commit the mark apart from the work)
	 */
	private Connection transactionConnection() {
		if (!(TransactionSynchronizationManager.getResource(this.dataSource) instanceof ConnectionHolder)) {
			throw new IllegalStateException("The transaction manager of TransactionalTenantTasks bound no JDBC "
					+ "connection for the tenant-routing DataSource " + this.dataSource + ": use a "
					+ "JpaTransactionManager or a DataSourceTransactionManager on that DataSource, or the raw "
					+ "connection form TenantTasks.start");
		}
		return DataSourceUtils.getConnection(this.dataSource);
	}

	/** A checked exception of the attempt, carried through {@link TransactionTemplate} (which rolls back). */
	private static final class CheckedFailure extends RuntimeException {

		private static final long serialVersionUID = 1L;

		private final transient Exception failure;

		CheckedFailure(Exception failure) {
			super(failure.toString(), failure, false, false);
			this.failure = failure;
		}

	}

}
