package io.github.shardtenancy.internal.jdbc;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.sql.PreparedStatement;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;

import static io.github.shardtenancy.internal.jdbc.Invocations.invokeOn;

/**
 * The invocation handler of a statement that its {@link TenantConnection} must see executing: checks the SQL a plain
 * {@code Statement} executes, runs each execution through the connection (begin, auto-commit), and, for a query sent
 * with the fence begin, shifts parameter indexes past the begin's and answers with the query's own result. Not
 * thread-safe, like the statement.
 */
final class StatementHandler implements InvocationHandler {

	private final ConnectionHandler connection;

	private final Object connectionProxy;

	private final Statement statement;

	private final boolean withBegin;

	/** The prepared SQL, or {@code null} for a plain {@code Statement}. */
	private final String sql;

	StatementHandler(ConnectionHandler connection, Object connectionProxy, Statement statement, boolean withBegin,
			String sql) {
		this.connection = connection;
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
			shifted[0] = index + FenceBegin.BEGIN_PARAMETERS;
			return invokeOn(this.statement, method, shifted);
		}
		switch (name) {
			case "executeQuery", "execute", "executeUpdate", "executeLargeUpdate" -> {
				if (args != null && args.length > 0) {
					// Statement's forms with their own SQL (a PreparedStatement's driver refuses them).
					String own = (String) args[0];
					this.connection.checkStatement(own);
					return this.connection.execute(this.statement, own, false,
							() -> invokeOn(this.statement, method, args));
				}
				if (this.withBegin) {
					return this.connection.execute(this.statement, this.sql, true,
							() -> this.connection.begin().executeWithQuery(name, (PreparedStatement) this.statement));
				}
				return this.connection.execute(this.statement, this.sql, false,
						() -> invokeOn(this.statement, method, args));
			}
			case "executeBatch", "executeLargeBatch" -> {
				if (this.withBegin) {
					throw new SQLFeatureNotSupportedException(
							"A query sent with the fence begin cannot be batched: " + name);
				}
				return this.connection.execute(this.statement, null, false,
						() -> invokeOn(this.statement, method, args));
			}
			case "addBatch" -> {
				if (this.withBegin) {
					throw new SQLFeatureNotSupportedException(
							"A query sent with the fence begin cannot be batched: " + name);
				}
				if (args != null && args.length > 0) {
					this.connection.checkStatement((String) args[0]);
				}
			}
			case "getParameterMetaData" -> {
				if (this.withBegin) {
					return FenceBegin.shiftedMetaData(((PreparedStatement) this.statement).getParameterMetaData());
				}
			}
			case "clearParameters" -> {
				if (this.withBegin) {
					((PreparedStatement) this.statement).clearParameters();
					this.connection.begin().bind((PreparedStatement) this.statement);
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
