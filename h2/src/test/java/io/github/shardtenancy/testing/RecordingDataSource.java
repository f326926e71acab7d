package io.github.shardtenancy.testing;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import javax.sql.DataSource;

/**
 * A {@link DataSource} that hands out the connections of another one and records the text of every SQL statement
 * sent through them ({@code prepareStatement}, {@code prepareCall}, {@code nativeSQL} and the {@code execute*} /
 * {@code addBatch} methods of plain statements), and how many connections were borrowed. It is how a test proves that
 * a value was bound as a parameter rather than written into SQL: the recorded texts do not depend on it. Thread-safe.
 */
public final class RecordingDataSource {

	private static final Set<String> STATEMENT_SQL = Set.of("execute", "executeQuery", "executeUpdate",
			"executeLargeUpdate", "addBatch");

	private final List<String> statements = new ArrayList<>();

	private final AtomicLong borrows = new AtomicLong();

	private final DataSource dataSource;

	private RecordingDataSource(DataSource target) {
		this.dataSource = (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(),
				new Class<?>[] { DataSource.class }, (proxy, method, args) -> {
					Object result = invoke(target, method, args);
					if (method.getName().equals("getConnection")) {
						this.borrows.incrementAndGet();
						return connection((Connection) result);
					}
					return result;
				});
	}

	/**
	 * @param target the data source whose connections are recorded
	 * @return the recorder; {@link #dataSource()} is the recording data source
	 */
	public static RecordingDataSource wrap(DataSource target) {
		return new RecordingDataSource(target);
	}

	/** @return the recording data source */
	public DataSource dataSource() {
		return this.dataSource;
	}

	/** @return the SQL texts recorded since the last {@link #clear()}, in order */
	public List<String> statements() {
		synchronized (this.statements) {
			return List.copyOf(this.statements);
		}
	}

	/** @return connections borrowed since the last {@link #clear()} */
	public long borrows() {
		return this.borrows.get();
	}

	/** Forgets what was recorded. */
	public void clear() {
		synchronized (this.statements) {
			this.statements.clear();
		}
		this.borrows.set(0);
	}

	private void record(String sql) {
		synchronized (this.statements) {
			this.statements.add(sql);
		}
	}

	private Connection connection(Connection target) {
		InvocationHandler handler = (proxy, method, args) -> {
			String name = method.getName();
			if (name.equals("equals")) {
				return proxy == args[0];
			}
			if (name.equals("hashCode")) {
				return System.identityHashCode(proxy);
			}
			if ((name.equals("prepareStatement") || name.equals("prepareCall") || name.equals("nativeSQL"))
					&& args != null && args[0] instanceof String sql) {
				record(sql);
			}
			Object result = invoke(target, method, args);
			if (name.equals("createStatement")) {
				return statement((Statement) result, Statement.class);
			}
			if (name.equals("prepareStatement")) {
				return statement((Statement) result, PreparedStatement.class);
			}
			if (name.equals("prepareCall")) {
				return statement((Statement) result, CallableStatement.class);
			}
			return result;
		};
		return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(),
				new Class<?>[] { Connection.class }, handler);
	}

	private <S extends Statement> S statement(Statement target, Class<S> type) {
		InvocationHandler handler = (proxy, method, args) -> {
			if (STATEMENT_SQL.contains(method.getName()) && args != null && args.length > 0
					&& args[0] instanceof String sql) {
				record(sql);
			}
			if (method.getName().equals("getConnection")) {
				return target.getConnection();
			}
			return invoke(target, method, args);
		};
		return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] { type }, handler));
	}

	private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
		try {
			return method.invoke(target, args);
		}
		catch (InvocationTargetException ex) {
			throw ex.getCause();
		}
	}

}
