package io.github.shardtenancy.internal;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.ParameterMetaData;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.Locale;

import io.github.shardtenancy.CrossTenantStatementException;
import io.github.shardtenancy.ShardConnectionLostException;
import io.github.shardtenancy.ShardUnavailableException;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.TenantSwitchedException;
import io.github.shardtenancy.retry.CommittedWork;
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
 */
public final class TenantConnection implements java.lang.reflect.InvocationHandler {

	/** Parameters the begin statement takes before the query's: tenant id, directory version. */
	private static final int BEGIN_PARAMETERS = 2;

	/**
	 * Most parameters a query may have and still travel with the begin: PostgreSQL's protocol counts a statement's
	 * parameters in 16 bits (65,535 at most), and the begin adds two.
	 */
	private static final int MAX_QUERY_PARAMETERS = 65_535 - BEGIN_PARAMETERS;

	/** Longest statement text quoted in an error or in {@link CommittedWork}. */
	private static final int QUOTED_LENGTH = 120;

	private final Connection connection;

	private final FenceDialect dialect;

	private final String shardId;

	private final String tenantId;

	private final long directoryVersion;

	/** Whether the begin is transaction-local and travels with the first query (else it ran once, before wrapping). */
	private final boolean beginsPerTransaction;

	private boolean begun;

	/** Whether any statement ran in this connection's life: only the first may turn a broken connection into "unavailable". */
	private boolean ranAny;

	/** Called by {@code close()} on a connection of the tenant-routing DataSource; {@code null} for Hibernate's. */
	private Release release;

	/** The auto-commit mode the code sees, on a connection of the tenant-routing DataSource. */
	private boolean autoCommit;

	/** A statement that may write ran in the current transaction (DataSource connections only). */
	private String wrote;

	private TenantConnection(Connection connection, FenceDialect dialect, String shardId, String tenantId,
			long directoryVersion, boolean beginsPerTransaction) {
		this.connection = connection;
		this.dialect = dialect;
		this.shardId = shardId;
		this.tenantId = tenantId;
		this.directoryVersion = directoryVersion;
		this.beginsPerTransaction = beginsPerTransaction;
		this.begun = !beginsPerTransaction;
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
		boolean perTransaction = dialect.beginStatement() != null;
		if (perTransaction) {
			connection.setAutoCommit(false);
		}
		return (Connection) Proxy.newProxyInstance(TenantConnection.class.getClassLoader(),
				new Class<?>[] { Connection.class },
				new TenantConnection(connection, dialect, shardId, tenantId, directoryVersion, perTransaction));
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
		TenantConnection handler = handlerOf(connection);
		if (handler == null) {
			throw new IllegalArgumentException("Not a tenant connection: " + connection);
		}
		handler.release = release;
		handler.autoCommit = true;
	}

	/**
	 * @param connection a connection, possibly from {@link #wrap}
	 * @return the pool's connection inside it, or the connection itself
	 */
	public static Connection unwrapPooled(Connection connection) {
		TenantConnection handler = handlerOf(connection);
		return handler != null ? handler.connection : connection;
	}

	private static TenantConnection handlerOf(Connection connection) {
		if (Proxy.isProxyClass(connection.getClass())
				&& Proxy.getInvocationHandler(connection) instanceof TenantConnection handler) {
			return handler;
		}
		return null;
	}

	@Override
	public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
		switch (method.getName()) {
			case "prepareStatement" -> {
				String sql = (String) args[0];
				checkStatement(sql);
				// (sql), (sql, type, concurrency), (sql, type, concurrency, holdability) keep the query's result shape;
				// (sql, autoGeneratedKeys | columnIndexes | columnNames) ask for generated keys.
				if (!this.begun && args.length != 2 && isQuery(sql)) {
					return prepareWithBegin(proxy, method, args);
				}
				beginNow();
				return statement(proxy, (Statement) invokeOn(this.connection, method, args), false, sql);
			}
			case "prepareCall" -> {
				String sql = (String) args[0];
				checkStatement(sql);
				beginNow();
				return statement(proxy, (Statement) invokeOn(this.connection, method, args), false, sql);
			}
			case "createStatement" -> {
				checkTenant();
				beginNow();
				return statement(proxy, (Statement) invokeOn(this.connection, method, args), false, null);
			}
			case "setSavepoint" -> beginNow();
			case "unwrap" -> {
				if (((Class<?>) args[0]).isInstance(proxy)) {
					return proxy;
				}
				// The driver's own connection (COPY, large objects, notifications) runs SQL this proxy does not see.
				beginNow();
			}
			case "getAutoCommit" -> {
				if (this.release != null) {
					return this.autoCommit;
				}
			}
			case "setAutoCommit" -> {
				if (this.release != null) {
					setAutoCommit((Boolean) args[0]);
					return null;
				}
				if (Boolean.TRUE.equals(args[0])) {
					return endingTransaction(method, args);
				}
			}
			case "commit" -> {
				if (this.release != null) {
					if (!this.autoCommit) {
						commit(true);
					}
					return null; // nothing is pending in auto-commit mode
				}
				return endingTransaction(method, args);
			}
			case "rollback" -> {
				if (args == null || args.length == 0) {
					if (this.release != null && this.autoCommit) {
						return null;
					}
					this.wrote = null;
					return endingTransaction(method, args);
				}
				// A rollback to a savepoint does not end the transaction.
			}
			case "close" -> {
				if (this.release != null) {
					Release r = this.release;
					this.release = null;
					r.run();
					return null;
				}
			}
			case "equals" -> {
				return proxy == args[0];
			}
			case "hashCode" -> {
				return System.identityHashCode(proxy);
			}
			case "toString" -> {
				return toString();
			}
			default -> {
			}
		}
		return invokeOn(this.connection, method, args);
	}

	/** Commits or rolls back on the pooled connection; the transaction ends (also when ending it fails). */
	private Object endingTransaction(Method method, Object[] args) throws Throwable {
		try {
			return invokeOn(this.connection, method, args);
		}
		finally {
			transactionEnded();
		}
	}

	private void transactionEnded() {
		if (this.beginsPerTransaction) {
			this.begun = false;
		}
	}

	private void setAutoCommit(boolean on) throws SQLException {
		if (on == this.autoCommit) {
			return;
		}
		if (on) {
			// JDBC: switching auto-commit on commits the transaction in progress.
			if (this.connection.getAutoCommit()) {
				this.connection.setAutoCommit(true);
				recordWrite(true);
			}
			else {
				commit(true);
			}
			this.autoCommit = true;
			return;
		}
		if (this.connection.getAutoCommit()) {
			this.connection.setAutoCommit(false);
		}
		this.autoCommit = false;
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
			transactionEnded();
		}
		recordWrite(asked);
	}

	private void recordWrite(boolean pending) {
		if (this.wrote != null) {
			String description = "a write of tenant '" + this.tenantId + "' on shard '" + this.shardId
					+ "' through the tenant-routing DataSource: " + this.wrote;
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
	 * Runs one execution of a statement of this connection: first the begin, unless the statement carries it or it
	 * ran in this transaction already (a statement may be executed again after a commit); then, in auto-commit mode on
	 * a DataSource connection, commits the execution when it succeeds and rolls it back when it fails, before
	 * returning.
	 */
	private Object execute(Statement statement, String sql, boolean withBegin, Execution execution) throws Throwable {
		if (!withBegin) {
			beginNow();
		}
		if (this.release == null) {
			return execution.run();
		}
		CommittedWork.workBegins();
		if (sql == null || !isRead(sql)) {
			this.wrote = sql != null ? quoted(sql) : "a statement batch";
		}
		if (!this.autoCommit) {
			return execution.run();
		}
		boolean manual = !this.connection.getAutoCommit();
		if (manual && statement.getFetchSize() > 0) {
			// A cursor would not outlive the commit below: read the rows at once, as in auto-commit mode.
			statement.setFetchSize(0);
		}
		Object result;
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
			transactionEnded();
		}
	}

	/** Returns a DataSource connection to the provider. */
	@FunctionalInterface
	public interface Release {

		/**
		 * @throws SQLException if the connection cannot be cleaned or closed
		 */
		void run() throws SQLException;

	}

	@FunctionalInterface
	private interface Execution {

		Object run() throws Throwable;

	}

	private void checkTenant() {
		String bound = TenantContext.current();
		if (bound != null && !bound.equals(this.tenantId)) {
			throw new TenantSwitchedException(this.tenantId, bound, this.shardId);
		}
	}

	private void checkStatement(String sql) {
		checkTenant();
		if (sql != null && actsOnWholeTables(sql)) {
			throw new CrossTenantStatementException(this.tenantId, this.shardId, this.directoryVersion, quoted(sql));
		}
	}

	/** {@code TRUNCATE} or DDL other than a temporary table. */
	static boolean actsOnWholeTables(String sql) {
		Words words = new Words(sql);
		String first = words.next();
		return switch (first) {
			case "TRUNCATE", "ALTER", "DROP", "GRANT", "REVOKE", "COMMENT" -> true;
			case "CREATE" -> {
				String second = words.next();
				if (second.equals("LOCAL") || second.equals("GLOBAL")) {
					second = words.next();
				}
				yield !(second.equals("TEMPORARY") || second.equals("TEMP"));
			}
			default -> false;
		};
	}

	/** A statement that only reads: {@code SELECT}, {@code SHOW}. */
	static boolean isRead(String sql) {
		String first = new Words(sql).next();
		return first.equals("SELECT") || first.equals("SHOW");
	}

	private static boolean isQuery(String sql) {
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

	private static String quoted(String sql) {
		String s = sql.strip();
		return s.length() <= QUOTED_LENGTH ? s : s.substring(0, QUOTED_LENGTH) + "...";
	}

	private void beginNow() throws SQLException {
		if (this.begun) {
			return;
		}
		try {
			this.dialect.begin(this.connection, this.tenantId, this.directoryVersion);
		}
		catch (SQLException ex) {
			throw unavailableIfFirst(ex);
		}
		this.begun = true;
		this.ranAny = true;
	}

	private SQLException unavailableIfFirst(SQLException ex) {
		if (this.ranAny || !ShardConnectionLostException.isConnectionFailure(ex)) {
			return ex;
		}
		ShardUnavailableException unavailable = new ShardUnavailableException(this.tenantId, this.shardId,
				this.directoryVersion, ex);
		return new SQLException(unavailable.getMessage(), ex.getSQLState(), unavailable);
	}

	private Object prepareWithBegin(Object connectionProxy, Method method, Object[] args) throws Throwable {
		Object[] combinedArgs = args.clone();
		combinedArgs[0] = this.dialect.beginStatement() + ";\n" + args[0];
		PreparedStatement statement = (PreparedStatement) invokeOn(this.connection, method, combinedArgs);
		try {
			bindBegin(statement);
		}
		catch (SQLException | RuntimeException ex) {
			statement.close();
			throw ex;
		}
		return statement(connectionProxy, statement, true, (String) args[0]);
	}

	private void bindBegin(PreparedStatement statement) throws SQLException {
		statement.setString(1, this.tenantId);
		statement.setLong(2, this.directoryVersion);
	}

	/**
	 * The statement to hand out: the driver's own for a Hibernate connection, unless it must be watched (a statement
	 * sent with the begin, whose parameters and results are shifted; a plain {@code Statement}, whose SQL comes with
	 * each execution); always watched on a DataSource connection (auto-commit).
	 */
	private Statement statement(Object connectionProxy, Statement statement, boolean withBegin, String sql) {
		if (!withBegin && sql != null && this.release == null) {
			return statement;
		}
		Class<?> type = statement instanceof CallableStatement ? CallableStatement.class
				: statement instanceof PreparedStatement ? PreparedStatement.class : Statement.class;
		return (Statement) Proxy.newProxyInstance(TenantConnection.class.getClassLoader(), new Class<?>[] { type },
				new WatchedStatement(connectionProxy, statement, withBegin, sql));
	}

	/** A statement of this connection that the connection must see executing. */
	private final class WatchedStatement implements java.lang.reflect.InvocationHandler {

		private final Object connectionProxy;

		private final Statement statement;

		private final boolean withBegin;

		/** The prepared SQL, or {@code null} for a plain {@code Statement}. */
		private final String sql;

		WatchedStatement(Object connectionProxy, Statement statement, boolean withBegin, String sql) {
			this.connectionProxy = connectionProxy;
			this.statement = statement;
			this.withBegin = withBegin;
			this.sql = sql;
		}

		@Override
		public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
			String name = method.getName();
			if (this.withBegin && method.getDeclaringClass() == PreparedStatement.class && name.startsWith("set")
					&& args != null && args.length > 0 && args[0] instanceof Integer index) {
				Object[] shifted = args.clone();
				shifted[0] = index + BEGIN_PARAMETERS;
				return invokeOn(this.statement, method, shifted);
			}
			switch (name) {
				case "executeQuery", "execute", "executeUpdate", "executeLargeUpdate" -> {
					if (args != null && args.length > 0) {
						// Statement's forms with their own SQL (a PreparedStatement's driver refuses them).
						String own = (String) args[0];
						checkStatement(own);
						return TenantConnection.this.execute(this.statement, own, false,
								() -> invokeOn(this.statement, method, args));
					}
					if (this.withBegin) {
						return TenantConnection.this.execute(this.statement, this.sql, true,
								() -> executeWithBegin(name, (PreparedStatement) this.statement));
					}
					return TenantConnection.this.execute(this.statement, this.sql, false,
							() -> invokeOn(this.statement, method, args));
				}
				case "executeBatch", "executeLargeBatch" -> {
					if (this.withBegin) {
						throw new SQLFeatureNotSupportedException(
								"A query sent with the fence begin cannot be batched: " + name);
					}
					return TenantConnection.this.execute(this.statement, null, false,
							() -> invokeOn(this.statement, method, args));
				}
				case "addBatch" -> {
					if (this.withBegin) {
						throw new SQLFeatureNotSupportedException(
								"A query sent with the fence begin cannot be batched: " + name);
					}
					if (args != null && args.length > 0) {
						checkStatement((String) args[0]);
					}
				}
				case "getParameterMetaData" -> {
					if (this.withBegin) {
						return shiftedMetaData(((PreparedStatement) this.statement).getParameterMetaData());
					}
				}
				case "clearParameters" -> {
					if (this.withBegin) {
						((PreparedStatement) this.statement).clearParameters();
						bindBegin((PreparedStatement) this.statement);
						return null;
					}
				}
				case "getConnection" -> {
					return this.connectionProxy;
				}
				case "unwrap", "isWrapperFor" -> {
					// Never hand out the driver's statement alone: executing it would skip what this proxy does.
					if (((Class<?>) args[0]).isInstance(proxy)) {
						return name.equals("unwrap") ? proxy : Boolean.TRUE;
					}
				}
				case "equals" -> {
					return proxy == args[0];
				}
				case "hashCode" -> {
					return System.identityHashCode(proxy);
				}
				case "toString" -> {
					return "TenantConnection statement[" + this.statement + "]";
				}
				default -> {
				}
			}
			return invokeOn(this.statement, method, args);
		}

	}

	/** Runs begin and query, answering as the query's own {@code executeXxx()} would. */
	private Object executeWithBegin(String name, PreparedStatement statement) throws SQLException {
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
		boolean second = statement.getMoreResults();
		return switch (name) {
			case "executeQuery" -> {
				if (!second) {
					throw new SQLException("No results were returned by the query", "02000");
				}
				yield statement.getResultSet();
			}
			case "execute" -> second;
			case "executeUpdate" -> statement.getUpdateCount();
			default -> statement.getLargeUpdateCount();
		};
	}

	/** The statement's parameter metadata as the query's own: the begin's parameters hidden, indexes shifted. */
	private static ParameterMetaData shiftedMetaData(ParameterMetaData combined) {
		return (ParameterMetaData) Proxy.newProxyInstance(TenantConnection.class.getClassLoader(),
				new Class<?>[] { ParameterMetaData.class }, (proxy, m, a) -> {
					if (m.getName().equals("getParameterCount")) {
						return combined.getParameterCount() - BEGIN_PARAMETERS;
					}
					if (a != null && a.length == 1 && a[0] instanceof Integer index) {
						return invokeOn(combined, m, new Object[] { index + BEGIN_PARAMETERS });
					}
					return invokeOn(combined, m, a);
				});
	}

	private static Object invokeOn(Object target, Method method, Object[] args) throws Throwable {
		try {
			return method.invoke(target, args);
		}
		catch (InvocationTargetException ex) {
			throw ex.getTargetException();
		}
	}

	@Override
	public String toString() {
		return String.format(Locale.ROOT, "TenantConnection[tenant '%s', shard '%s', directory version %d]",
				this.tenantId, this.shardId, this.directoryVersion);
	}

	/** The leading words of a statement, upper case, past white space, comments and opening parentheses. */
	private static final class Words {

		private final String sql;

		private int at;

		Words(String sql) {
			this.sql = sql;
		}

		/** @return the next word, or "" at the end or before anything that is not a word */
		String next() {
			skip();
			int start = this.at;
			while (this.at < this.sql.length() && Character.isLetter(this.sql.charAt(this.at))) {
				this.at++;
			}
			return this.sql.substring(start, this.at).toUpperCase(Locale.ROOT);
		}

		private void skip() {
			int n = this.sql.length();
			while (this.at < n) {
				char c = this.sql.charAt(this.at);
				if (Character.isWhitespace(c) || c == '(') {
					this.at++;
				}
				else if (c == '-' && this.sql.startsWith("--", this.at)) {
					int end = this.sql.indexOf('\n', this.at);
					this.at = end < 0 ? n : end + 1;
				}
				else if (c == '/' && this.sql.startsWith("/*", this.at)) {
					int end = this.sql.indexOf("*/", this.at + 2);
					this.at = end < 0 ? n : end + 2;
				}
				else {
					return;
				}
			}
		}

	}

}
