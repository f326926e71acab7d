package io.github.shardtenancy;

/**
 * Opens, commits and rolls back the transaction of one attempt of a tenant in a {@link TenantTasks} run: the seam
 * through which a framework runs the attempt in its own transaction (with Spring Boot, a {@code TransactionTemplate}
 * of the application's transaction manager) instead of the library's raw connection.
 *
 * <p>The library calls it with the tenant bound ({@link TenantContext}) and inside the run's retry, once per attempt.
 * The body it is given is the library's part of the attempt: for a named run the completion mark is looked up, the
 * work runs, and the mark is inserted, all on the connection the implementation passes in. The implementation must
 * pass the connection of the transaction it opened, routed for the bound tenant (a connection of
 * {@link ShardTenancy#dataSource()} or one the framework took from it), commit the transaction when the body returns
 * and roll it back when it throws, and must not open a second connection for the body. The body never commits,
 * rolls back or closes the connection.
 *
 * <p>Without one ({@link TenantTaskOptions#transaction}), the library takes a connection of
 * {@link ShardTenancy#dataSource()}, turns auto-commit off, and commits or rolls it back itself.
 */
@FunctionalInterface
public interface TenantTaskTransaction {

	/**
	 * Runs one attempt's body in one transaction on the bound tenant's shard.
	 * @param tenantId the tenant, bound on the calling thread; never {@code null}
	 * @param body the attempt; run once, on the transaction's connection; never {@code null}
	 * @param <T> the result type
	 * @return what the body returned, once its transaction committed
	 * @throws Exception what the body threw (its transaction rolled back), or the failure of the begin or the commit
	 */
	<T> T execute(String tenantId, TenantWork<T> body) throws Exception;

}
