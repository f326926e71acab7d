package io.github.shardtenancy;

import java.util.concurrent.Callable;

/**
 * Runs one tenant's transaction of a {@link TenantTasks} run, running it again after a retryable failure. The usual
 * one is a {@code ShardTenancyRetry}'s {@code call} method: {@code TenantTaskOptions.named(...).retry(retry::call)}.
 */
@FunctionalInterface
public interface TenantTaskRetry {

	/**
	 * @param transaction one complete transaction, safe to run again after it failed (it was rolled back)
	 * @param <T> the result type
	 * @return what the successful run returned
	 * @throws Exception the failure that was not retried, or the last one when the retries ran out
	 */
	<T> T call(Callable<T> transaction) throws Exception;

}
