package io.github.shardtenancy;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Work across tenants and shards, for jobs and administration: a function run for every tenant (or those of one
 * shard, or a list), each in its own tenant-bound transaction, and a read-only query over every shard.
 *
 * <p>{@link #start} enumerates the tenants from the directory when it is called (every tenant not
 * {@link TenantState#DELETED}), binds each one in turn with {@link TenantContext} and runs its work in one transaction
 * on a connection of {@link ShardTenancy#dataSource()} (or in the transaction {@link TenantTaskOptions#transaction}
 * opens), inside a retry ({@link TenantTaskOptions#retry}):
 * a tenant that moves meanwhile is rejected by the fence of its old shard, rolled back and run on the new one, so it
 * is processed once, never skipped. One failing tenant never stops the others.
 *
 * <p>A named run holds the lease of its name in the directory ({@code shard_task_run}), renewed by a heartbeat every
 * third of {@link TenantTaskOptions#lease}: a second run of the name is refused while the lease lives
 * ({@link TenantTaskRunLeasedException}). It inserts a completion mark ({@code shard_task_log}, with the run's fencing
 * token) in the tenant's own shard transaction and checks there, before the commit, that it still holds the lease, so
 * the mark commits if and only if the work does, and a run that lost its lease commits nothing more (its tenants fail
 * with {@link TenantTaskLeaseLostException}). The marks are a tenant table of the library: a move carries them with
 * the tenant. After the commit it records the outcome in the directory ({@code shard_task_tenant}). A run started
 * again with the same name, once the lease ended or lapsed, skips every tenant with a mark on any shard or a DONE
 * outcome in the directory: a tenant's work is committed at most once. That needs every shard readable when the run
 * starts; see {@code docs/across-tenants.md} for the exact guarantee and its limits.
 *
 * <p>{@link #queryAllShards} reads across tenants on purpose, on the shards' own pools (no tenant bound); it is
 * meant for administration and reporting, not for tenant-facing code.
 *
 * <p>Obtained from {@link ShardTenancy#tenantTasks()}. Thread-safe.
 */
public interface TenantTasks {

	/**
	 * Starts a run in the background.
	 * @param options the tenants and the run's name, parallelism, executor and retry; never {@code null}
	 * @param work the work for one tenant; never {@code null}
	 * @param <T> the result type
	 * @return the running run; never {@code null}
	 * @throws DirectoryUnavailableException if the directory cannot be read to enumerate the tenants or the outcomes
	 * of an earlier run of the same name
	 * @throws ShardUnavailableException for a named run, if a shard's completion marks cannot be read (running the
	 * tenants could then run committed work again); its shard names the shard
	 * @throws TenantTaskRunLeasedException for a named run, if another run of the name (in any instance) holds its
	 * lease
	 * @throws UnknownShardException if {@link TenantTaskOptions#shard} names no shard of the topology
	 * @throws IllegalStateException if the tenancy was closed
	 * @throws java.util.concurrent.RejectedExecutionException if the executor refuses the run's tasks
	 */
	<T> TenantTaskRun<T> start(TenantTaskOptions options, TenantWork<T> work);

	/**
	 * Runs a read-only query on every shard of the topology at once, with no tenant bound, and merges the rows.
	 * Each shard's query runs in a read-only transaction that is rolled back; a shard that fails or does not answer
	 * within the time limit is reported in {@link ShardQueryResult#shards()} and its rows are left out (its statement
	 * is cancelled), so the rows are partial when {@link ShardQueryResult#complete()} is false.
	 * @param sql a {@code SELECT} (or {@code WITH ... SELECT}) statement with {@code ?} parameters; never {@code null}
	 * @param parameters the parameter values, in order; never {@code null}
	 * @param mapper maps each row; never {@code null}
	 * @param timeout the time limit for the whole query, positive
	 * @param <T> the row type
	 * @return the merged rows and each shard's status; never {@code null}
	 * @throws IllegalArgumentException if the statement does not start with {@code SELECT} or {@code WITH}, holds a
	 * {@code ;} outside quotes and comments other than a trailing one (a second statement), or the timeout is not
	 * positive
	 */
	<T> ShardQueryResult<T> queryAllShards(String sql, List<?> parameters, ShardRowMapper<T> mapper,
			Duration timeout);

	/**
	 * @param retry the retry for runs whose options name none (a framework's configured {@code ShardTenancyRetry}:
	 * {@code retry::call}); never {@code null}
	 * @return a view of these tasks that runs with that retry unless {@link TenantTaskOptions#retry} says otherwise;
	 * never {@code null}
	 * @throws NullPointerException if {@code retry} is {@code null}
	 */
	default TenantTasks withDefaultRetry(TenantTaskRetry retry) {
		Objects.requireNonNull(retry, "retry");
		TenantTasks tasks = this;
		return new TenantTasks() {

			@Override
			public <T> TenantTaskRun<T> start(TenantTaskOptions options, TenantWork<T> work) {
				Objects.requireNonNull(options, "options");
				return tasks.start((options.retry() != null) ? options : options.retry(retry), work);
			}

			@Override
			public <T> ShardQueryResult<T> queryAllShards(String sql, List<?> parameters, ShardRowMapper<T> mapper,
					Duration timeout) {
				return tasks.queryAllShards(sql, parameters, mapper, timeout);
			}

		};
	}

}
