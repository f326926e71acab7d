package io.github.shardtenancy.internal.jdbc;

import io.github.shardtenancy.retry.CommittedWork;
import java.sql.Connection;
import java.sql.SQLException;

import io.github.shardtenancy.CrossTenantStatementException;
import io.github.shardtenancy.ShardUnavailableException;
import io.github.shardtenancy.TenantSwitchedException;
import io.github.shardtenancy.spi.FenceDialect;

/**
 * A borrowed shard connection of one tenant, as the connection provider hands it to Hibernate and the tenant-routing
 * {@code DataSource} hands it to JDBC code. It keeps three promises on top of the pooled connection.
 *
 * <p><b>No statement before the fence begin.</b> For a dialect with a {@link FenceDialect#beginStatement()}
 * (PostgreSQL), the begin travels with the transaction's first query instead of taking a round trip of its own: while
 * the begin has not run in the current transaction, {@code prepareStatement(sql)} of a {@code SELECT} prepares
 * {@code beginStatement; sql} instead. The driver sends both statements in one flight; the server runs the begin first
 * (fence check and session variables), so a rejection (SQLSTATE 40001) aborts the transaction before the query reads
 * anything. The statement handed back shifts parameter indexes past the begin's two parameters (tenant id, directory
 * version) and answers with the query's own result. Every other way to run SQL while the begin has not run (another
 * kind of statement, a statement returning generated keys, {@code createStatement}, {@code prepareCall}, a savepoint,
 * or {@code unwrap} to the driver's own connection, for COPY and the like) first runs {@link FenceDialect#begin} on its
 * own; so does a query with more parameters than the protocol allows once the begin's two are added. A commit, a
 * rollback or auto-commit switched on ends the transaction and with it the variables (they are transaction-local), so
 * the next transaction on the same connection begins again. For a dialect without a begin statement (H2), the
 * provider ran {@link FenceDialect#begin} before wrapping, and its session variables last until the connection is
 * released.
 *
 * <p><b>Only this tenant's work.</b> Preparing or creating a statement while another tenant is bound on the thread
 * raises {@link TenantSwitchedException}; {@code TRUNCATE} and DDL raise {@link CrossTenantStatementException}
 * (temporary tables excepted). Both are raised before anything reaches the database.
 *
 * <p><b>Auto-commit as JDBC defines it, on the tenant-routing {@code DataSource}.</b> A connection handed out by the
 * {@code DataSource} ({@link #releaseOnClose}) starts in auto-commit mode, as JDBC requires of a new connection, and
 * honours it: each statement executed in auto-commit mode is committed when it completes (fenced like any transaction),
 * or rolled back if it fails, before the call returns; so a write that reports success is committed. Where the
 * dialect keeps the pooled connection in manual commit (PostgreSQL: the fence's variables are transaction-local), the
 * connection commits after each statement itself and reads a query's rows at once (fetch size 0), as drivers do in
 * auto-commit mode. {@code setAutoCommit(false)} starts manual mode, where {@code commit} and {@code rollback} end the
 * transaction; {@code setAutoCommit(true)} commits a transaction in progress. Each committed write is recorded in
 * {@link CommittedWork}. Connections handed to Hibernate keep the pooled connection's mode; Hibernate and Spring manage
 * their transactions.
 *
 * <p>When the transaction's very first statement fails because the connection is broken (a pooled connection whose
 * server restarted), nothing of the work ran: the failure is raised as an {@link SQLException} with the driver's
 * SQLState whose cause is a {@link ShardUnavailableException}, which the retry runs again.
 *
 * <p>Not thread-safe, like the {@link Connection} it wraps: one transaction's thread uses it.
 *
 * <p>The connection is a {@code FencedConnection}, a plain delegating wrapper (no reflection), which checks each
 * statement ({@code StatementClassifier}), runs the {@code FenceBegin} and, on the tenant-routing {@code DataSource},
 * the {@code AutoCommitEmulation}; every statement it hands out is a delegating {@code FencedStatement},
 * {@code FencedPreparedStatement} or {@code FencedCallableStatement} whose {@code getConnection()} is the tenant
 * connection.
 */
public final class TenantConnection {

	private TenantConnection() {
	}

	/**
	 * Wraps a connection just borrowed from the shard's pool. If the dialect has a
	 * {@link FenceDialect#beginStatement() beginStatement}, switches auto-commit off (no round trip on drivers that open
	 * the transaction lazily) and leaves the begin to the first statement; otherwise the caller must have run
	 * {@link FenceDialect#begin} already.
	 * @param connection the pooled connection
	 * @param dialect the shard's dialect
	 * @param shardId the shard, named in errors
	 * @param tenantId the tenant, already validated
	 * @param directoryVersion the directory version of the route
	 * @return the connection to hand out
	 * @throws SQLException if auto-commit cannot be switched off
	 */
	public static Connection wrap(Connection connection, FenceDialect dialect, String shardId, String tenantId,
			long directoryVersion) throws SQLException {
		return wrap(connection, dialect, shardId, tenantId, directoryVersion, java.util.Set.of());
	}

	/**
	 * As {@link #wrap(Connection, FenceDialect, String, String, long)}, refusing statements that write a reference
	 * table ({@link io.github.shardtenancy.ReferenceWriteException}): reference data is written to every shard through
	 * {@code ShardTenancy.referenceTables()}, never on one tenant's connection.
	 * @param referenceTables the reference tables, lower case
	 */
	public static Connection wrap(Connection connection, FenceDialect dialect, String shardId, String tenantId,
			long directoryVersion, java.util.Set<String> referenceTables) throws SQLException {
		Connection fenced = wrap0(connection, dialect, shardId, tenantId, directoryVersion);
		((FencedConnection) fenced).refuseWritesTo(referenceTables);
		return fenced;
	}

	private static Connection wrap0(Connection connection, FenceDialect dialect, String shardId, String tenantId,
			long directoryVersion) throws SQLException {
		boolean perTransaction = dialect.beginStatement() != null;
		if (perTransaction) {
			connection.setAutoCommit(false);
		}
		Route route = new Route(tenantId, shardId, directoryVersion);
		FenceBegin begin = new FenceBegin(connection, dialect, route, perTransaction);
		return new FencedConnection(connection, route, begin);
	}

	/**
	 * Turns a connection from {@link #wrap} into a connection of the tenant-routing {@code DataSource}: auto-commit
	 * mode from now on (see the class documentation), and {@code close()} runs the given release once instead of
	 * closing the pooled connection.
	 * @param connection a connection returned by {@link #wrap}
	 * @param release returns the connection to the provider; it must close the pooled connection
	 * ({@link #unwrapPooled}), not this one
	 * @throws IllegalArgumentException if the connection does not come from {@link #wrap}
	 */
	public static void releaseOnClose(Connection connection, Release release) {
		if (!(connection instanceof FencedConnection fenced)) {
			throw new IllegalArgumentException("Not a tenant connection: " + connection);
		}
		fenced.releaseOnClose(release);
	}

	/**
	 * @param connection a connection, possibly from {@link #wrap}
	 * @return the pool's connection inside it, or the connection itself
	 */
	public static Connection unwrapPooled(Connection connection) {
		return connection instanceof FencedConnection fenced ? fenced.pooled() : connection;
	}

	/**
	 * @param connection a connection, possibly from {@link #wrap}
	 * @return what it did since it was handed out, or {@code null} if it is not a tenant connection
	 */
	public static @org.jspecify.annotations.Nullable Usage usage(Connection connection) {
		return connection instanceof FencedConnection fenced ? fenced.usage() : null;
	}

	/**
	 * What one tenant connection did between being handed out and now.
	 * @param tenantId the tenant
	 * @param shardId its shard
	 * @param transactions transactions ended: commits and rollbacks, and statements run in auto-commit mode
	 * @param rowsWritten rows reported written (update counts, batch counts) by statements of committed transactions
	 * (a statement run with {@code execute()} reports none)
	 * @param nanos time since the connection was handed out, in nanoseconds
	 */
	public record Usage(String tenantId, String shardId, long transactions, long rowsWritten, long nanos) {
	}

	/** Returns a DataSource connection to the provider. */
	@FunctionalInterface
	public interface Release {

		/**
		 * @throws SQLException if the connection cannot be cleaned or closed
		 */
		void run() throws SQLException;

	}

}
