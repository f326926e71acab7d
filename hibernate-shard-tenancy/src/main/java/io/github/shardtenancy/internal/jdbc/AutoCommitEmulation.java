package io.github.shardtenancy.internal.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

import io.github.shardtenancy.retry.CommittedWork;
import org.jspecify.annotations.Nullable;

/**
 * Auto-commit as JDBC defines it, on a connection of the tenant-routing {@code DataSource} (see
 * {@link TenantConnection}): the mode the code sees, the commit or rollback of each statement executed in auto-commit
 * mode, and the record of committed writes in {@link CommittedWork}. Where the pooled connection is in manual commit
 * (PostgreSQL), each statement is committed here, after it completes. Not thread-safe, like the connection.
 */
final class AutoCommitEmulation {

	/** What a batch is called in committed-work records. */
	private static final String BATCH = "a statement batch";

	private final Connection connection;

	private final FenceBegin begin;

	private final Route route;

	/** The auto-commit mode the code sees. */
	private boolean on = true;

	/**
	 * The pooled connection's auto-commit mode, read once: it changes only here, unless the code unwrapped the driver's
	 * connection ({@link #pooledModeUnknown}).
	 */
	private @Nullable Boolean pooledAutoCommit;

	/** The SQL of a statement that may write and ran in the current transaction, or {@link #BATCH}. */
	private @Nullable String wrote;

	/** @param connection the pooled connection, in either mode */
	AutoCommitEmulation(Connection connection, FenceBegin begin, Route route) {
		this.connection = connection;
		this.begin = begin;
		this.route = route;
	}

	/** @return the auto-commit mode the code sees */
	boolean isOn() {
		return this.on;
	}

	/** {@code setAutoCommit}: switching it on commits the transaction in progress, as JDBC requires. */
	void set(boolean on) throws SQLException {
		if (on == this.on) {
			return;
		}
		if (on) {
			// JDBC: switching auto-commit on commits the transaction in progress.
			if (pooledAutoCommit()) {
				this.connection.setAutoCommit(true);
				recordWrite(true);
			}
			else {
				commit(true);
			}
			this.on = true;
			return;
		}
		if (pooledAutoCommit()) {
			this.connection.setAutoCommit(false);
			this.pooledAutoCommit = false;
		}
		this.on = false;
	}

	private boolean pooledAutoCommit() throws SQLException {
		Boolean mode = this.pooledAutoCommit;
		if (mode == null) {
			mode = this.connection.getAutoCommit();
			this.pooledAutoCommit = mode;
		}
		return mode;
	}

	/** The code holds the driver's own connection and may change its mode behind this emulation. */
	void pooledModeUnknown() {
		this.pooledAutoCommit = null;
	}

	/** {@code commit()} the code asked for: nothing is pending in auto-commit mode. */
	void commitAsked() throws SQLException {
		if (!this.on) {
			commit(true);
		}
	}

	/** The code rolls the transaction back: its writes were not committed. */
	void rolledBack() {
		this.wrote = null;
	}

	/**
	 * Commits the pooled connection's transaction. A commit the code asked for may be the attempt's own transaction,
	 * so it is recorded as {@linkplain CommittedWork#recordPending pending}; a statement's auto-commit is recorded as
	 * committed work outright.
	 */
	private void commit(boolean asked) throws SQLException {
		try {
			this.connection.commit();
		}
		finally {
			this.begin.transactionEnded();
		}
		recordWrite(asked);
	}

	private void recordWrite(boolean pending) {
		if (this.wrote != null) {
			String description = "a write of tenant '" + this.route.tenantId() + "' on shard '"
					+ this.route.shardId() + "' through the tenant-routing DataSource: "
					+ StatementClassifier.quoted(this.wrote);
			if (pending) {
				CommittedWork.recordPending(description);
			}
			else {
				CommittedWork.record(description);
			}
			this.wrote = null;
		}
	}

	/**
	 * Runs one execution of a statement, its begin already run or carried: in auto-commit mode, commits the execution
	 * when it succeeds and rolls it back when it fails, before returning.
	 * @param statement the driver's statement
	 * @param sql its SQL, or {@code null} for a batch
	 * @param read whether the SQL only reads ({@link StatementClassifier#isRead}), {@code false} for a batch
	 */
	<T> T execute(Statement statement, @Nullable String sql, boolean read, Execution<T> execution)
			throws SQLException {
		CommittedWork.workBegins();
		if (!read) {
			this.wrote = sql != null ? sql : BATCH;
		}
		if (!this.on) {
			return execution.run();
		}
		boolean manual = !pooledAutoCommit();
		if (manual && statement.getFetchSize() > 0) {
			// A cursor would not outlive the commit below: read the rows at once, as in auto-commit mode.
			statement.setFetchSize(0);
		}
		T result;
		try {
			result = execution.run();
		}
		catch (Throwable ex) {
			this.wrote = null;
			if (manual) {
				rollbackAfter(ex);
			}
			throw ex;
		}
		if (manual) {
			try {
				commit(false);
			}
			catch (SQLException ex) {
				this.wrote = null;
				rollbackAfter(ex);
				throw ex;
			}
		}
		else {
			recordWrite(false);
		}
		return result;
	}

	private void rollbackAfter(Throwable failure) {
		try {
			this.connection.rollback();
		}
		catch (SQLException ex) {
			failure.addSuppressed(ex);
		}
		finally {
			this.begin.transactionEnded();
		}
	}

	/** One execution of a statement, as the driver runs it. */
	@FunctionalInterface
	interface Execution<T> {

		T run() throws SQLException;

	}

}
