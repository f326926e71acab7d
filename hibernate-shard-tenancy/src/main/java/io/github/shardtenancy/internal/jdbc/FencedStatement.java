package io.github.shardtenancy.internal.jdbc;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;

import io.github.shardtenancy.retry.RetryAttempts;
import org.jspecify.annotations.Nullable;

/**
 * A statement of a {@link FencedConnection}: checks the SQL a plain {@code Statement} executes, runs each execution
 * after the connection's begin and, on a connection of the tenant-routing {@code DataSource}, under its auto-commit;
 * {@code getConnection()} is the tenant connection. Everything else is the driver's statement's own. Not thread-safe,
 * like the statement.
 */
class FencedStatement implements Statement {

	final FencedConnection connection;

	private final Statement statement;

	FencedStatement(FencedConnection connection, Statement statement) {
		this.connection = connection;
		this.statement = statement;
	}

	/**
	 * Runs one execution: first the begin, unless the statement carries it or it ran in this transaction already (a
	 * statement may be executed again after a commit); then the execution itself, under the auto-commit of a
	 * DataSource connection.
	 * @param sql what runs, or {@code null} for a batch
	 */
	final <T> T run(@Nullable String sql, boolean carriesBegin, AutoCommitEmulation.Execution<T> execution)
			throws SQLException {
		if (sql != null) {
			writing(sql);
		}
		if (!carriesBegin) {
			this.connection.begin().now();
		}
		AutoCommitEmulation autoCommit = this.connection.autoCommit();
		boolean read = sql != null && isRead(sql);
		T result = autoCommit == null ? execution.run()
				: autoCommit.execute(this.statement, sql, read, execution);
		long rows = read ? 0 : rowsOf(result);
		this.connection.executed(rows, autoCommit != null && autoCommit.isOn());
		if (sql != null && rows == 0 && (result instanceof Integer || result instanceof Long)) {
			updatedNothing(sql);
		}
		return result;
	}

	/**
	 * Tells a retried attempt running on this thread of an {@code INSERT} about to run, before its begin (so an INSERT
	 * that the fence rejects counts): see {@link RetryAttempts#inserting}.
	 * @param sql what is about to run
	 */
	static void writing(String sql) {
		if (RetryAttempts.inProgress()) {
			String table = SqlShape.of(sql).insertInto;
			if (table != null) {
				RetryAttempts.inserting(table);
			}
		}
	}

	/**
	 * Tells a retried attempt running on this thread of a statement that wrote no row: an {@code UPDATE} is checked
	 * ({@link RetryAttempts#updatedNothing}).
	 * @param sql what ran
	 * @throws io.github.shardtenancy.RerunMismatchException as {@link RetryAttempts#updatedNothing}
	 */
	static void updatedNothing(String sql) {
		if (RetryAttempts.inProgress()) {
			String table = SqlShape.of(sql).updateOf;
			if (table != null) {
				RetryAttempts.updatedNothing(table, sql);
			}
		}
	}

	/**
	 * Starts an execution on a connection without {@link AutoCommitEmulation} (one handed to Hibernate), which the
	 * caller then runs directly instead of through {@link #run} and a lambda: runs the begin first unless the statement
	 * carries it.
	 * @return whether the caller may run the execution directly and then report it with {@link #executedDirectly};
	 * {@code false}: use {@link #run}
	 */
	final boolean runsDirectly(boolean carriesBegin) throws SQLException {
		if (this.connection.autoCommit() != null) {
			return false;
		}
		if (!carriesBegin) {
			this.connection.begin().now();
		}
		return true;
	}

	/**
	 * Reports an execution run directly ({@link #runsDirectly}), as {@link #run} does.
	 * @param sql what ran
	 * @param count the update count it returned
	 */
	final void executedDirectly(String sql, long count) {
		this.connection.executed(isRead(sql) ? 0 : Math.max(count, 0), false);
		if (count == 0) {
			updatedNothing(sql);
		}
	}

	/** @return the rows an execution's result reports written (an update count or a batch's counts), else 0 */
	private static long rowsOf(@Nullable Object result) {
		if (result instanceof Integer count) {
			return Math.max(count, 0);
		}
		if (result instanceof Long count) {
			return Math.max(count, 0);
		}
		long rows = 0;
		if (result instanceof int[] counts) {
			for (int count : counts) {
				rows += Math.max(count, 0);
			}
		}
		else if (result instanceof long[] counts) {
			for (long count : counts) {
				rows += Math.max(count, 0);
			}
		}
		return rows;
	}

	/** @return whether the SQL only reads ({@link StatementClassifier#isRead}) */
	boolean isRead(String sql) {
		return SqlShape.of(sql).read;
	}

	/** @throws java.sql.SQLFeatureNotSupportedException if this statement cannot be batched */
	void checkBatch(String method) throws SQLException {
	}

	// The forms with their own SQL (a PreparedStatement's driver refuses them, after the checks).

	@Override
	public ResultSet executeQuery(String sql) throws SQLException {
		this.connection.checkStatement(sql);
		return run(sql, false, () -> this.statement.executeQuery(sql));
	}

	@Override
	public int executeUpdate(String sql) throws SQLException {
		this.connection.checkStatement(sql);
		return run(sql, false, () -> this.statement.executeUpdate(sql));
	}

	@Override
	public int executeUpdate(String sql, int autoGeneratedKeys) throws SQLException {
		this.connection.checkStatement(sql);
		return run(sql, false, () -> this.statement.executeUpdate(sql, autoGeneratedKeys));
	}

	@Override
	public int executeUpdate(String sql, int[] columnIndexes) throws SQLException {
		this.connection.checkStatement(sql);
		return run(sql, false, () -> this.statement.executeUpdate(sql, columnIndexes));
	}

	@Override
	public int executeUpdate(String sql, String[] columnNames) throws SQLException {
		this.connection.checkStatement(sql);
		return run(sql, false, () -> this.statement.executeUpdate(sql, columnNames));
	}

	@Override
	public boolean execute(String sql) throws SQLException {
		this.connection.checkStatement(sql);
		return run(sql, false, () -> this.statement.execute(sql));
	}

	@Override
	public boolean execute(String sql, int autoGeneratedKeys) throws SQLException {
		this.connection.checkStatement(sql);
		return run(sql, false, () -> this.statement.execute(sql, autoGeneratedKeys));
	}

	@Override
	public boolean execute(String sql, int[] columnIndexes) throws SQLException {
		this.connection.checkStatement(sql);
		return run(sql, false, () -> this.statement.execute(sql, columnIndexes));
	}

	@Override
	public boolean execute(String sql, String[] columnNames) throws SQLException {
		this.connection.checkStatement(sql);
		return run(sql, false, () -> this.statement.execute(sql, columnNames));
	}

	@Override
	public long executeLargeUpdate(String sql) throws SQLException {
		this.connection.checkStatement(sql);
		return run(sql, false, () -> this.statement.executeLargeUpdate(sql));
	}

	@Override
	public long executeLargeUpdate(String sql, int autoGeneratedKeys) throws SQLException {
		this.connection.checkStatement(sql);
		return run(sql, false, () -> this.statement.executeLargeUpdate(sql, autoGeneratedKeys));
	}

	@Override
	public long executeLargeUpdate(String sql, int[] columnIndexes) throws SQLException {
		this.connection.checkStatement(sql);
		return run(sql, false, () -> this.statement.executeLargeUpdate(sql, columnIndexes));
	}

	@Override
	public long executeLargeUpdate(String sql, String[] columnNames) throws SQLException {
		this.connection.checkStatement(sql);
		return run(sql, false, () -> this.statement.executeLargeUpdate(sql, columnNames));
	}

	@Override
	public void addBatch(String sql) throws SQLException {
		checkBatch("addBatch");
		this.connection.checkStatement(sql);
		this.statement.addBatch(sql);
	}

	@Override
	public int[] executeBatch() throws SQLException {
		checkBatch("executeBatch");
		return run(null, false, this.statement::executeBatch);
	}

	@Override
	public long[] executeLargeBatch() throws SQLException {
		checkBatch("executeLargeBatch");
		return run(null, false, this.statement::executeLargeBatch);
	}

	@Override
	public Connection getConnection() {
		return this.connection;
	}

	@Override
	public <T> T unwrap(Class<T> iface) throws SQLException {
		return iface.isInstance(this) ? iface.cast(this) : this.statement.unwrap(iface);
	}

	@Override
	public boolean isWrapperFor(Class<?> iface) throws SQLException {
		return iface.isInstance(this) || this.statement.isWrapperFor(iface);
	}

	@Override
	public String toString() {
		return "TenantConnection statement[" + this.statement + "]";
	}

	// Everything else is the driver's statement's own.

	@Override
	public void close() throws SQLException {
		this.statement.close();
	}

	@Override
	public int getMaxFieldSize() throws SQLException {
		return this.statement.getMaxFieldSize();
	}

	@Override
	public void setMaxFieldSize(int max) throws SQLException {
		this.statement.setMaxFieldSize(max);
	}

	@Override
	public int getMaxRows() throws SQLException {
		return this.statement.getMaxRows();
	}

	@Override
	public void setMaxRows(int max) throws SQLException {
		this.statement.setMaxRows(max);
	}

	@Override
	public void setEscapeProcessing(boolean enable) throws SQLException {
		this.statement.setEscapeProcessing(enable);
	}

	@Override
	public int getQueryTimeout() throws SQLException {
		return this.statement.getQueryTimeout();
	}

	@Override
	public void setQueryTimeout(int seconds) throws SQLException {
		this.statement.setQueryTimeout(seconds);
	}

	@Override
	public void cancel() throws SQLException {
		this.statement.cancel();
	}

	@Override
	public SQLWarning getWarnings() throws SQLException {
		return this.statement.getWarnings();
	}

	@Override
	public void clearWarnings() throws SQLException {
		this.statement.clearWarnings();
	}

	@Override
	public void setCursorName(String name) throws SQLException {
		this.statement.setCursorName(name);
	}

	@Override
	public ResultSet getResultSet() throws SQLException {
		return this.statement.getResultSet();
	}

	@Override
	public int getUpdateCount() throws SQLException {
		return this.statement.getUpdateCount();
	}

	@Override
	public boolean getMoreResults() throws SQLException {
		return this.statement.getMoreResults();
	}

	@Override
	public void setFetchDirection(int direction) throws SQLException {
		this.statement.setFetchDirection(direction);
	}

	@Override
	public int getFetchDirection() throws SQLException {
		return this.statement.getFetchDirection();
	}

	@Override
	public void setFetchSize(int rows) throws SQLException {
		this.statement.setFetchSize(rows);
	}

	@Override
	public int getFetchSize() throws SQLException {
		return this.statement.getFetchSize();
	}

	@Override
	public int getResultSetConcurrency() throws SQLException {
		return this.statement.getResultSetConcurrency();
	}

	@Override
	public int getResultSetType() throws SQLException {
		return this.statement.getResultSetType();
	}

	@Override
	public void clearBatch() throws SQLException {
		this.statement.clearBatch();
	}

	@Override
	public boolean getMoreResults(int current) throws SQLException {
		return this.statement.getMoreResults(current);
	}

	@Override
	public ResultSet getGeneratedKeys() throws SQLException {
		return this.statement.getGeneratedKeys();
	}

	@Override
	public int getResultSetHoldability() throws SQLException {
		return this.statement.getResultSetHoldability();
	}

	@Override
	public boolean isClosed() throws SQLException {
		return this.statement.isClosed();
	}

	@Override
	public void setPoolable(boolean poolable) throws SQLException {
		this.statement.setPoolable(poolable);
	}

	@Override
	public boolean isPoolable() throws SQLException {
		return this.statement.isPoolable();
	}

	@Override
	public void closeOnCompletion() throws SQLException {
		this.statement.closeOnCompletion();
	}

	@Override
	public boolean isCloseOnCompletion() throws SQLException {
		return this.statement.isCloseOnCompletion();
	}

	@Override
	public long getLargeUpdateCount() throws SQLException {
		return this.statement.getLargeUpdateCount();
	}

	@Override
	public void setLargeMaxRows(long max) throws SQLException {
		this.statement.setLargeMaxRows(max);
	}

	@Override
	public long getLargeMaxRows() throws SQLException {
		return this.statement.getLargeMaxRows();
	}

	@Override
	public String enquoteLiteral(String val) throws SQLException {
		return this.statement.enquoteLiteral(val);
	}

	@Override
	public String enquoteIdentifier(String identifier, boolean alwaysQuote) throws SQLException {
		return this.statement.enquoteIdentifier(identifier, alwaysQuote);
	}

	@Override
	public boolean isSimpleIdentifier(String identifier) throws SQLException {
		return this.statement.isSimpleIdentifier(identifier);
	}

	@Override
	public String enquoteNCharLiteral(String val) throws SQLException {
		return this.statement.enquoteNCharLiteral(val);
	}

}
