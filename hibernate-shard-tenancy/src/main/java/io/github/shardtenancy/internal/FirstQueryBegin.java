package io.github.shardtenancy.internal;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Locale;

import io.github.shardtenancy.ShardConnectionLostException;
import io.github.shardtenancy.ShardUnavailableException;
import io.github.shardtenancy.spi.FenceDialect;

/**
 * A borrowed shard connection whose fence begin travels with the transaction's first query instead of taking a round
 * trip of its own (issue 7: "binding them with the first statement"), for dialects that have a
 * {@link FenceDialect#beginStatement()}.
 *
 * <p>While the begin has not run in the current transaction, {@code prepareStatement(sql)} of a {@code SELECT}
 * prepares {@code beginStatement; sql} instead. The driver sends both statements in one flight; the server runs the
 * begin first (fence check and session variables), so a rejection (SQLSTATE 40001) aborts the transaction before the
 * query reads anything. The statement handed back shifts parameter indexes past the begin's two parameters (tenant id,
 * directory version) and answers with the query's own result. Every other way to run SQL while the begin has not run
 * (another kind of statement, a statement returning generated keys, {@code createStatement}, {@code prepareCall}, a
 * savepoint, or {@code unwrap} to the driver's own connection, for COPY and the like) first runs
 * {@link FenceDialect#begin} on its own, as every transaction did before; so does a query with more parameters than
 * the protocol allows once the begin's two are added. So no statement of a
 * tenant's transaction runs before the begin, in whatever order statements are prepared and executed; a query prepared
 * with the begin and executed after the begin ran elsewhere runs it again, which only re-checks the fence.
 * A commit, a rollback or auto-commit switched on ends the transaction and with it the variables (they are
 * transaction-local), so the next transaction on the same connection begins again.
 *
 * <p>When the transaction's very first statement fails because the connection is broken (a pooled connection whose
 * server restarted), nothing of the work ran: the failure is raised as an {@link SQLException} with the driver's
 * SQLState whose cause is a {@link ShardUnavailableException}, which the retry runs again, exactly as when
 * {@link FenceDialect#begin} failed on its own.
 *
 * <p>Not thread-safe, like the {@link Connection} it wraps: one transaction's thread uses it.
 */
public final class FirstQueryBegin implements java.lang.reflect.InvocationHandler {

	/** Parameters the begin statement takes before the query's: tenant id, directory version. */
	private static final int BEGIN_PARAMETERS = 2;

	/**
	 * Most parameters a query may have and still travel with the begin: PostgreSQL's protocol counts a statement's
	 * parameters in 16 bits (65,535 at most), and the begin adds two.
	 */
	private static final int MAX_QUERY_PARAMETERS = 65_535 - BEGIN_PARAMETERS;

	private final Connection connection;

	private final FenceDialect dialect;

	private final String shardId;

	private final String tenantId;

	private final long directoryVersion;

	private boolean begun;

	/** Whether any statement ran in this connection's life: only the first may turn a broken connection into "unavailable". */
	private boolean ranAny;

	private FirstQueryBegin(Connection connection, FenceDialect dialect, String shardId, String tenantId,
			long directoryVersion) {
		this.connection = connection;
		this.dialect = dialect;
		this.shardId = shardId;
		this.tenantId = tenantId;
		this.directoryVersion = directoryVersion;
	}

	/**
	 * Switches auto-commit off (no round trip on drivers that open the transaction lazily) and wraps the connection.
	 * @param connection a connection just borrowed from the shard's pool
	 * @param dialect the shard's dialect; its {@link FenceDialect#beginStatement()} must not be {@code null}
	 * @param shardId the shard, named in errors
	 * @param tenantId the tenant, already validated
	 * @param directoryVersion the directory version of the route
	 * @return the connection to hand to Hibernate
	 * @throws SQLException if auto-commit cannot be switched off
	 */
	public static Connection wrap(Connection connection, FenceDialect dialect, String shardId, String tenantId,
			long directoryVersion) throws SQLException {
		connection.setAutoCommit(false);
		return (Connection) Proxy.newProxyInstance(FirstQueryBegin.class.getClassLoader(),
				new Class<?>[] { Connection.class },
				new FirstQueryBegin(connection, dialect, shardId, tenantId, directoryVersion));
	}

	/**
	 * @param connection a connection, possibly from {@link #wrap}
	 * @return the pool's connection inside it, or the connection itself
	 */
	public static Connection unwrapPooled(Connection connection) {
		if (Proxy.isProxyClass(connection.getClass())
				&& Proxy.getInvocationHandler(connection) instanceof FirstQueryBegin handler) {
			return handler.connection;
		}
		return connection;
	}

	@Override
	public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
		switch (method.getName()) {
			case "prepareStatement" -> {
				// (sql), (sql, type, concurrency), (sql, type, concurrency, holdability) keep the query's result shape;
				// (sql, autoGeneratedKeys | columnIndexes | columnNames) ask for generated keys.
				if (!this.begun && args.length != 2 && isQuery((String) args[0])) {
					return prepareWithBegin(proxy, method, args);
				}
				beginNow();
			}
			case "createStatement", "prepareCall", "setSavepoint" -> beginNow();
			case "unwrap" -> {
				if (((Class<?>) args[0]).isInstance(proxy)) {
					return proxy;
				}
				// The driver's own connection (COPY, large objects, notifications) runs SQL this proxy does not see.
				beginNow();
			}
			case "commit", "rollback", "setAutoCommit" -> {
				if (args == null || args.length == 0 || Boolean.TRUE.equals(args[0])) {
					// The transaction ends (also when ending it fails) and its transaction-local variables with it;
					// a rollback to a savepoint or auto-commit switched off does not end it.
					try {
						return invokeOn(this.connection, method, args);
					}
					finally {
						this.begun = false;
					}
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
		return Proxy.newProxyInstance(FirstQueryBegin.class.getClassLoader(), new Class<?>[] { PreparedStatement.class },
				(proxy, m, a) -> invokeWithBegin(proxy, connectionProxy, statement, m, a));
	}

	private void bindBegin(PreparedStatement statement) throws SQLException {
		statement.setString(1, this.tenantId);
		statement.setLong(2, this.directoryVersion);
	}

	private Object invokeWithBegin(Object statementProxy, Object connectionProxy, PreparedStatement statement,
			Method method, Object[] args) throws Throwable {
		String name = method.getName();
		if (method.getDeclaringClass() == PreparedStatement.class && name.startsWith("set") && args != null
				&& args.length > 0 && args[0] instanceof Integer index) {
			Object[] shifted = args.clone();
			shifted[0] = index + BEGIN_PARAMETERS;
			return invokeOn(statement, method, shifted);
		}
		switch (name) {
			case "executeQuery", "execute", "executeUpdate", "executeLargeUpdate" -> {
				if (args != null && args.length > 0) {
					break; // Statement's forms with their own SQL: the driver refuses them on a PreparedStatement
				}
				boolean second = executeWithBegin(statement);
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
			case "getParameterMetaData" -> {
				return shiftedMetaData(statement.getParameterMetaData());
			}
			case "clearParameters" -> {
				statement.clearParameters();
				bindBegin(statement);
				return null;
			}
			case "addBatch", "executeBatch", "executeLargeBatch" -> throw new SQLFeatureNotSupportedException(
					"A query sent with the fence begin cannot be batched: " + name);
			case "getConnection" -> {
				return connectionProxy;
			}
			case "unwrap", "isWrapperFor" -> {
				// Never hand out the driver's statement alone: executing it would skip the result shift.
				if (((Class<?>) args[0]).isInstance(statementProxy)) {
					return name.equals("unwrap") ? statementProxy : Boolean.TRUE;
				}
			}
			case "equals" -> {
				return statementProxy == args[0];
			}
			case "hashCode" -> {
				return System.identityHashCode(statementProxy);
			}
			case "toString" -> {
				return "FirstQueryBegin statement[" + statement + "]";
			}
			default -> {
			}
		}
		return invokeOn(statement, method, args);
	}

	/** The statement's parameter metadata as the query's own: the begin's parameters hidden, indexes shifted. */
	private static java.sql.ParameterMetaData shiftedMetaData(java.sql.ParameterMetaData combined) {
		return (java.sql.ParameterMetaData) Proxy.newProxyInstance(FirstQueryBegin.class.getClassLoader(),
				new Class<?>[] { java.sql.ParameterMetaData.class }, (proxy, m, a) -> {
					if (m.getName().equals("getParameterCount")) {
						return combined.getParameterCount() - BEGIN_PARAMETERS;
					}
					if (a != null && a.length == 1 && a[0] instanceof Integer index) {
						return invokeOn(combined, m, new Object[] { index + BEGIN_PARAMETERS });
					}
					return invokeOn(combined, m, a);
				});
	}

	/** Runs begin and query; returns whether the query's result is a result set (JDBC's {@code execute}). */
	private boolean executeWithBegin(PreparedStatement statement) throws SQLException {
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
		return String.format(Locale.ROOT, "FirstQueryBegin[tenant '%s', shard '%s', directory version %d]",
				this.tenantId, this.shardId, this.directoryVersion);
	}

}
