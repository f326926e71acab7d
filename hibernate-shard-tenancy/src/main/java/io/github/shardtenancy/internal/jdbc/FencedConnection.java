package io.github.shardtenancy.internal.jdbc;

import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.Locale;
import java.util.Set;

import io.github.shardtenancy.CrossTenantStatementException;
import io.github.shardtenancy.ReferenceWriteException;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.TenantSwitchedException;
import org.jspecify.annotations.Nullable;

/**
 * A {@link TenantConnection}: refuses statements of another tenant and statements on whole tables, runs the
 * {@link FenceBegin} before anything else reaches the database, ends transactions, and, on a connection of the
 * tenant-routing {@code DataSource}, hands mode, commits and rollbacks to its {@link AutoCommitEmulation}; the rest
 * is the pooled connection's own ({@link ConnectionDelegate}). Every statement it hands out is a
 * {@link FencedStatement} whose {@code getConnection()} is this connection. Not thread-safe, like the connection.
 */
final class FencedConnection extends ConnectionDelegate {

	private final Route route;

	private final FenceBegin begin;

	/** The reference tables (lower case), which this connection may read but never write. */
	private Set<String> referenceTables = Set.of();

	/** The auto-commit of a DataSource connection until it is closed; {@code null} for Hibernate's connections. */
	private @Nullable AutoCommitEmulation dataSource;

	/** Called by {@code close()} on a connection of the tenant-routing DataSource. */
	private TenantConnection.@Nullable Release release;

	/** When the connection was handed out, for the time spent in the tenant's work. */
	private final long handedOutNanos = System.nanoTime();

	/** Rows written by statements of the transaction in progress, not yet committed. */
	private long rowsPending;

	/** Rows written by committed transactions of this connection. */
	private long rowsCommitted;

	/** Transactions this connection ended (commits and rollbacks, and statements in auto-commit mode). */
	private long transactions;

	FencedConnection(Connection connection, Route route, FenceBegin begin) {
		super(connection);
		this.route = route;
		this.begin = begin;
	}

	/**
	 * A statement ran.
	 * @param rows the rows it reports written (0 for a read)
	 * @param autoCommitted whether it was committed on its own (auto-commit mode of a DataSource connection)
	 */
	void executed(long rows, boolean autoCommitted) {
		if (autoCommitted) {
			this.rowsCommitted += rows;
			this.transactions++;
		}
		else {
			this.rowsPending += rows;
		}
	}

	/** @return what this connection did since it was handed out, as of now */
	TenantConnection.Usage usage() {
		return new TenantConnection.Usage(this.route.tenantId(), this.route.shardId(), this.transactions,
				this.rowsCommitted, System.nanoTime() - this.handedOutNanos);
	}

	/** @return the pool's connection inside this one */
	Connection pooled() {
		return this.connection;
	}

	FenceBegin begin() {
		return this.begin;
	}

	/** @return the auto-commit of a connection of the tenant-routing DataSource, or {@code null} (Hibernate's) */
	@Nullable AutoCommitEmulation autoCommit() {
		return this.dataSource;
	}

	/** Makes this a connection of the tenant-routing DataSource, in auto-commit mode, released on close. */
	void releaseOnClose(TenantConnection.Release release) {
		this.release = release;
		this.dataSource = new AutoCommitEmulation(this.connection, this.begin, this.route);
	}

	// A plain statement's begin runs with its first execution (FencedStatement#run), once its SQL is known: an INSERT
	// whose begin the fence rejects then counts as issued for the retry's check of re-runs.

	@Override
	public Statement createStatement() throws SQLException {
		checkTenant();
		return new FencedStatement(this, this.connection.createStatement());
	}

	@Override
	public Statement createStatement(int resultSetType, int resultSetConcurrency) throws SQLException {
		checkTenant();
		return new FencedStatement(this, this.connection.createStatement(resultSetType, resultSetConcurrency));
	}

	@Override
	public Statement createStatement(int resultSetType, int resultSetConcurrency, int resultSetHoldability)
			throws SQLException {
		checkTenant();
		return new FencedStatement(this,
				this.connection.createStatement(resultSetType, resultSetConcurrency, resultSetHoldability));
	}

	// The forms (sql), (sql, type, concurrency) and (sql, type, concurrency, holdability) keep the query's result shape
	// and may carry the begin; the forms asking for generated keys run it on its own.

	@Override
	public PreparedStatement prepareStatement(String sql) throws SQLException {
		SqlShape shape = checkStatement(sql);
		if (this.begin.pending() && shape != null && shape.canTravelWithBegin) {
			return withBegin(sql, this.connection.prepareStatement(this.begin.withQuery(shape)));
		}
		this.begin.now();
		return new FencedPreparedStatement(this, this.connection.prepareStatement(sql), sql, false);
	}

	@Override
	public PreparedStatement prepareStatement(String sql, int resultSetType, int resultSetConcurrency)
			throws SQLException {
		SqlShape shape = checkStatement(sql);
		if (this.begin.pending() && shape != null && shape.canTravelWithBegin) {
			return withBegin(sql,
					this.connection.prepareStatement(this.begin.withQuery(shape), resultSetType, resultSetConcurrency));
		}
		this.begin.now();
		return new FencedPreparedStatement(this,
				this.connection.prepareStatement(sql, resultSetType, resultSetConcurrency), sql, false);
	}

	@Override
	public PreparedStatement prepareStatement(String sql, int resultSetType, int resultSetConcurrency,
			int resultSetHoldability) throws SQLException {
		SqlShape shape = checkStatement(sql);
		if (this.begin.pending() && shape != null && shape.canTravelWithBegin) {
			return withBegin(sql, this.connection.prepareStatement(this.begin.withQuery(shape), resultSetType,
					resultSetConcurrency, resultSetHoldability));
		}
		this.begin.now();
		return new FencedPreparedStatement(this,
				this.connection.prepareStatement(sql, resultSetType, resultSetConcurrency, resultSetHoldability), sql,
				false);
	}

	@Override
	public PreparedStatement prepareStatement(String sql, int autoGeneratedKeys) throws SQLException {
		checkStatement(sql);
		this.begin.now();
		return new FencedPreparedStatement(this, this.connection.prepareStatement(sql, autoGeneratedKeys), sql, false);
	}

	@Override
	public PreparedStatement prepareStatement(String sql, int[] columnIndexes) throws SQLException {
		checkStatement(sql);
		this.begin.now();
		return new FencedPreparedStatement(this, this.connection.prepareStatement(sql, columnIndexes), sql, false);
	}

	@Override
	public PreparedStatement prepareStatement(String sql, String[] columnNames) throws SQLException {
		checkStatement(sql);
		this.begin.now();
		return new FencedPreparedStatement(this, this.connection.prepareStatement(sql, columnNames), sql, false);
	}

	/** The statement of begin and query, the begin's parameters bound (closed if binding fails). */
	private PreparedStatement withBegin(String sql, PreparedStatement combined) throws SQLException {
		try {
			this.begin.bind(combined);
		}
		catch (SQLException | RuntimeException ex) {
			combined.close();
			throw ex;
		}
		return new FencedPreparedStatement(this, combined, sql, true);
	}

	@Override
	public CallableStatement prepareCall(String sql) throws SQLException {
		checkStatement(sql);
		this.begin.now();
		return new FencedCallableStatement(this, this.connection.prepareCall(sql), sql);
	}

	@Override
	public CallableStatement prepareCall(String sql, int resultSetType, int resultSetConcurrency) throws SQLException {
		checkStatement(sql);
		this.begin.now();
		return new FencedCallableStatement(this,
				this.connection.prepareCall(sql, resultSetType, resultSetConcurrency), sql);
	}

	@Override
	public CallableStatement prepareCall(String sql, int resultSetType, int resultSetConcurrency,
			int resultSetHoldability) throws SQLException {
		checkStatement(sql);
		this.begin.now();
		return new FencedCallableStatement(this,
				this.connection.prepareCall(sql, resultSetType, resultSetConcurrency, resultSetHoldability), sql);
	}

	@Override
	public Savepoint setSavepoint() throws SQLException {
		this.begin.now();
		return this.connection.setSavepoint();
	}

	@Override
	public Savepoint setSavepoint(String name) throws SQLException {
		this.begin.now();
		return this.connection.setSavepoint(name);
	}

	@Override
	public <T> T unwrap(Class<T> iface) throws SQLException {
		if (iface.isInstance(this)) {
			return iface.cast(this);
		}
		// The driver's own connection (COPY, large objects, notifications) runs SQL this connection does not see.
		this.begin.now();
		if (this.dataSource != null) {
			this.dataSource.pooledModeUnknown();
		}
		return this.connection.unwrap(iface);
	}

	@Override
	public boolean isWrapperFor(Class<?> iface) throws SQLException {
		return iface.isInstance(this) || this.connection.isWrapperFor(iface);
	}

	@Override
	public boolean getAutoCommit() throws SQLException {
		return this.dataSource != null ? this.dataSource.isOn() : this.connection.getAutoCommit();
	}

	@Override
	public void setAutoCommit(boolean autoCommit) throws SQLException {
		if (this.dataSource != null) {
			this.dataSource.set(autoCommit);
		}
		else if (autoCommit) {
			endTransaction(() -> this.connection.setAutoCommit(true));
		}
		else {
			this.connection.setAutoCommit(false);
		}
		if (autoCommit && this.rowsPending > 0) {
			committed();
		}
	}

	@Override
	public void commit() throws SQLException {
		if (this.dataSource != null) {
			this.dataSource.commitAsked();
		}
		else {
			try {
				this.connection.commit();
			}
			finally {
				this.begin.transactionEnded();
			}
		}
		committed();
	}

	/** The transaction in progress committed: its rows count as written. */
	private void committed() {
		this.rowsCommitted += this.rowsPending;
		this.rowsPending = 0;
		this.transactions++;
	}

	@Override
	public void rollback() throws SQLException {
		if (this.dataSource != null) {
			if (this.dataSource.isOn()) {
				return; // nothing is pending in auto-commit mode
			}
		}
		this.rowsPending = 0;
		this.transactions++;
		if (this.dataSource != null) {
			this.dataSource.rolledBack();
		}
		try {
			this.connection.rollback();
		}
		finally {
			this.begin.transactionEnded();
		}
	}

	/** Commits or rolls back on the pooled connection: the transaction ends, also when ending it fails. */
	private void endTransaction(Ending ending) throws SQLException {
		try {
			ending.run();
		}
		finally {
			this.begin.transactionEnded();
		}
	}

	@Override
	public void close() throws SQLException {
		TenantConnection.Release r = this.release;
		if (r == null) {
			this.connection.close();
			return;
		}
		this.release = null;
		this.dataSource = null;
		r.run();
	}

	private void checkTenant() {
		String bound = TenantContext.current();
		if (bound != null && !bound.equals(this.route.tenantId())) {
			throw new TenantSwitchedException(this.route.tenantId(), bound, this.route.shardId());
		}
	}

	/**
	 * Checks a statement about to be prepared or run, and tells a retried attempt running on this thread of an
	 * {@code INSERT} ({@link FencedStatement#writing}): here, before the begin that preparing runs, so that an INSERT
	 * whose begin the fence rejects (a freeze holds the tenant's fence lock) counts as issued, as one the row trigger
	 * rejects does.
	 * @return the statement's shape, or {@code null} if {@code sql} is {@code null}
	 * @throws TenantSwitchedException if another tenant is bound on the thread
	 * @throws CrossTenantStatementException if the statement is {@code TRUNCATE} or DDL (temporary tables excepted)
	 */
	@Nullable SqlShape checkStatement(@Nullable String sql) {
		checkTenant();
		if (sql == null) {
			return null;
		}
		SqlShape shape = SqlShape.of(sql);
		if (shape.actsOnWholeTables) {
			throw new CrossTenantStatementException(this.route.tenantId(), this.route.shardId(),
					this.route.directoryVersion(), StatementClassifier.quoted(sql));
		}
		if (!this.referenceTables.isEmpty() && !shape.read) {
			for (String target : ReferenceSql.writeTargets(sql)) {
				String plain = target.substring(target.lastIndexOf('.') + 1);
				if (this.referenceTables.contains(target) || this.referenceTables.contains(plain)) {
					throw new ReferenceWriteException("Statement \"" + StatementClassifier.quoted(sql) + "\" of tenant '"
							+ this.route.tenantId() + "' writes reference table " + target + ", which would change "
							+ "shard '" + this.route.shardId() + "' only: write reference data with "
							+ "ShardTenancy.referenceTables().write (the ReferenceTables bean)", this.route.shardId(),
							null);
				}
			}
		}
		FencedStatement.writing(sql);
		return shape;
	}

	/** @param tables the reference tables (lower case), which statements of this connection must not write */
	void refuseWritesTo(Set<String> tables) {
		this.referenceTables = tables;
	}

	@Override
	public String toString() {
		return String.format(Locale.ROOT, "TenantConnection[tenant '%s', shard '%s', directory version %d]",
				this.route.tenantId(), this.route.shardId(), this.route.directoryVersion());
	}

	/** A commit, a rollback or auto-commit switched on, on the pooled connection. */
	@FunctionalInterface
	private interface Ending {

		void run() throws SQLException;

	}

}
