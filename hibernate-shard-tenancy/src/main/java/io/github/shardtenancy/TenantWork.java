package io.github.shardtenancy;

import java.sql.Connection;

/**
 * The work {@link TenantTasks} runs for one tenant: one transaction on the tenant's shard.
 *
 * <p>The connection is the tenant's, routed and fenced as every tenant connection is, with auto-commit off. The library
 * (or the options' {@link TenantTaskTransaction}) commits it after the work returns (together with the run's completion
 * mark, for a named run) and rolls it back when the work throws; the work must neither commit nor close it. Plain JDBC
 * uses it directly; Hibernate opens a session on it
 * ({@code sessionFactory.withOptions().connection(connection).openSession()}); Spring's {@code JdbcTemplate} runs on it
 * through {@code new SingleConnectionDataSource(connection, true)}.
 *
 * <p>The work may run more than once when the shard fence rejects an attempt (the tenant moved): each attempt is a
 * complete transaction that was rolled back, so side effects outside the connection must be idempotent or happen
 * after the run.
 *
 * @param <T> the result type
 */
@FunctionalInterface
public interface TenantWork<T> {

	/**
	 * @param tenantId the tenant, bound on the calling thread by {@link TenantContext} while the work runs
	 * @param connection the tenant's shard connection in an open transaction; never {@code null}
	 * @return the tenant's result, possibly {@code null}
	 * @throws Exception any failure: the transaction is rolled back, and the tenant is reported failed unless the
	 * retry runs it again
	 */
	T run(String tenantId, Connection connection) throws Exception;

}
