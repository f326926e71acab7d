package io.github.shardtenancy.internal.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

import io.github.shardtenancy.ShardConnectionLostException;
import io.github.shardtenancy.ShardUnavailableException;
import io.github.shardtenancy.spi.FenceDialect;

/**
 * The fence begin of one tenant connection: whether it ran in the current transaction, running it on its own, or
 * sending it with the transaction's first query ({@code beginStatement; sql}, see {@link TenantConnection}). For a
 * dialect without a {@link FenceDialect#beginStatement() beginStatement}, the begin ran once before wrapping and this
 * never runs it again.
 *
 * <p>Also turns the failure of the connection's very first statement on a broken connection into "unavailable" (an
 * {@link SQLException} whose cause is a {@link ShardUnavailableException}). Not thread-safe, like the connection.
 */
final class FenceBegin {

	/** Parameters the begin statement takes before the query's: tenant id, directory version. */
	static final int BEGIN_PARAMETERS = 2;

	/**
	 * Most parameters a query may have and still travel with the begin: PostgreSQL's protocol counts a statement's
	 * parameters in 16 bits (65,535 at most), and the begin adds two.
	 */
	private static final int MAX_QUERY_PARAMETERS = 65_535 - BEGIN_PARAMETERS;

	private final Connection connection;

	private final FenceDialect dialect;

	private final Route route;

	/** Whether the begin is transaction-local and travels with the first query (else it ran once, before wrapping). */
	private final boolean perTransaction;

	private boolean begun;

	/** Whether any statement ran in this connection's life: only the first may turn a broken connection into "unavailable". */
	private boolean ranAny;

	FenceBegin(Connection connection, FenceDialect dialect, Route route, boolean perTransaction) {
		this.connection = connection;
		this.dialect = dialect;
		this.route = route;
		this.perTransaction = perTransaction;
		this.begun = !perTransaction;
	}

	/** @return whether the begin has not run in the current transaction yet */
	boolean pending() {
		return !this.begun;
	}

	/** The transaction ended (commit, rollback, auto-commit switched on): a transaction-local begin must run again. */
	void transactionEnded() {
		if (this.perTransaction) {
			this.begun = false;
		}
	}

	/** Runs the begin on its own unless it ran in this transaction already. */
	void now() throws SQLException {
		if (this.begun) {
			return;
		}
		try {
			this.dialect.begin(this.connection, this.route.tenantId(), this.route.directoryVersion());
		}
		catch (SQLException ex) {
			throw unavailableIfFirst(ex);
		}
		this.begun = true;
		this.ranAny = true;
	}

	/**
	 * @param sql a statement about to be prepared
	 * @return whether it is a single {@code SELECT} that can travel with the begin
	 */
	static boolean canTravelWith(String sql) {
		String s = sql.stripLeading();
		return s.regionMatches(true, 0, "select", 0, 6) && (s.length() == 6 || !Character.isLetterOrDigit(s.charAt(6)))
				&& s.indexOf(';') < 0 && placeholders(s) <= MAX_QUERY_PARAMETERS;
	}

	/** Counts {@code ?} characters: at least the query's parameters (some may sit in literals), so a safe bound. */
	private static int placeholders(String sql) {
		int count = 0;
		for (int i = sql.indexOf('?'); i >= 0; i = sql.indexOf('?', i + 1)) {
			count++;
		}
		return count;
	}

	/**
	 * @param query the shape of a query that {@linkplain #canTravelWith can travel with} the begin
	 * @return {@code beginStatement; sql}, to prepare and then {@linkplain #bind bind}
	 */
	String withQuery(SqlShape query) {
		return query.withBegin(this.dialect.beginStatement());
	}

	/** Binds the begin's parameters of a statement of {@link #withQuery}. */
	void bind(PreparedStatement statement) throws SQLException {
		statement.setString(1, this.route.tenantId());
		statement.setLong(2, this.route.directoryVersion());
	}

	/**
	 * Runs begin and query, leaving the statement at the query's result.
	 * @param statement a statement of {@link #withQuery}, bound
	 * @return whether the query's result is a {@code ResultSet} (as {@code execute()} answers)
	 */
	boolean executeWithQuery(PreparedStatement statement) throws SQLException {
		try {
			statement.execute();
		}
		catch (SQLException ex) {
			throw unavailableIfFirst(ex);
		}
		finally {
			this.ranAny = true;
		}
		this.begun = true;
		return statement.getMoreResults();
	}

	private SQLException unavailableIfFirst(SQLException ex) {
		if (this.ranAny || !ShardConnectionLostException.isConnectionFailure(ex)) {
			return ex;
		}
		ShardUnavailableException unavailable = new ShardUnavailableException(this.route.tenantId(),
				this.route.shardId(), this.route.directoryVersion(), ex);
		return new SQLException(unavailable.getMessage(), ex.getSQLState(), unavailable);
	}

}
