package io.github.shardtenancy.internal.jdbc;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.Locale;
import java.util.Set;

import io.github.shardtenancy.NoTenantBoundException;
import io.github.shardtenancy.spi.FenceDialect;
import org.jspecify.annotations.Nullable;

/**
 * A read-only connection of one shard for work with no tenant bound: it runs only {@code SELECT}s whose every table
 * (see {@link ReferenceSql}) is a reference table, one statement each as the shard's driver reads it
 * ({@link StatementCount}), and refuses any other statement (a write, or a read of a tenant table, which with no
 * tenant would see every tenant's rows) with {@link NoTenantBoundException} before it reaches the database. Those are
 * early errors; what the database enforces is the transaction {@link FenceDialect#beginReferenceRead} starts: read-only
 * also when the code works in auto-commit mode, which this connection then shows it while the transaction stays open
 * until the code commits, switches auto-commit on or closes; and, where the shard has one, run as a role that may read
 * the reference tables only ({@link FenceDialect#prepareReferenceRole}), whose refusal of a statement (SQLSTATE
 * {@code 42501}) reaches the code as {@link NoTenantBoundException} too. Not thread-safe, like the connection.
 */
public final class ReferenceReadConnection extends ConnectionDelegate {

	/** SQLSTATE {@code insufficient_privilege}. */
	private static final String INSUFFICIENT_PRIVILEGE = "42501";

	private final Set<String> referenceTables;

	private final String shardId;

	private final FenceDialect dialect;

	private final @Nullable String role;

	/** The auto-commit mode the code sees; the driver's connection stays in a read-only transaction. */
	private boolean autoCommit;

	/** Whether the current transaction was begun by {@link FenceDialect#beginReferenceRead}; not after an end. */
	private boolean begun = true;

	private ReferenceReadConnection(Connection connection, Set<String> referenceTables, String shardId,
			FenceDialect dialect, @Nullable String role, boolean autoCommit) {
		super(connection);
		this.referenceTables = referenceTables;
		this.shardId = shardId;
		this.dialect = dialect;
		this.role = role;
		this.autoCommit = autoCommit;
	}

	/**
	 * @param connection a connection of the shard, just borrowed; its read-only transaction starts here
	 * @param referenceTables the reference tables, lower case (plain or schema-qualified names)
	 * @param shardId the shard, named in errors
	 * @param dialect the shard's dialect
	 * @param role the role the transaction runs as ({@link FenceDialect#beginReferenceRead}), or {@code null} for the
	 * connection's own
	 * @return the guarded connection; closing it ends the transaction and closes {@code connection}
	 * @throws SQLException if the transaction cannot be started
	 */
	public static Connection wrap(Connection connection, Set<String> referenceTables, String shardId,
			FenceDialect dialect, @Nullable String role) throws SQLException {
		boolean autoCommit = connection.getAutoCommit();
		dialect.beginReferenceRead(connection, role);
		return new ReferenceReadConnection(connection, referenceTables, shardId, dialect, role, autoCommit);
	}

	/**
	 * Whether a statement is a {@code SELECT} whose every table position names a reference table (a plain name
	 * matches a reference table of that name in any schema). Statements with a backslash or a {@code $} anywhere are
	 * refused, since their string literals could end elsewhere than the reading assumes. Functions called in the
	 * select list or in a condition are not looked into.
	 * @param sql a statement
	 * @param referenceTables the reference tables, lower case
	 * @return whether the statement only reads reference tables
	 */
	public static boolean readsOnlyReferenceTables(String sql, Set<String> referenceTables) {
		if (!StatementClassifier.isRead(sql)) {
			return false;
		}
		if (sql.indexOf('\\') >= 0 || sql.indexOf('$') >= 0) {
			// Backslash escapes (PostgreSQL E'...') and dollar quoting could end a string literal where the reading
			// of table names does not: refused rather than misread.
			return false;
		}
		for (String table : ReferenceSql.tablesNamed(sql)) {
			String plain = table.substring(table.lastIndexOf('.') + 1);
			if (!referenceTables.contains(table) && !referenceTables.contains(plain)) {
				return false;
			}
		}
		return true;
	}

	private String check(String sql) throws SQLException {
		if (!readsOnlyReferenceTables(sql, this.referenceTables)
				|| !StatementCount.isOne(this.dialect, this.connection, sql)) {
			throw new NoTenantBoundException("the statement \"" + StatementClassifier.quoted(sql) + "\" (with no "
					+ "tenant bound, only SELECTs of the reference tables " + this.referenceTables
					+ ", one statement each, run, on shard '" + this.shardId + "'; write reference data with "
					+ "ShardTenancy.referenceTables().write)");
		}
		return sql;
	}

	@Override
	public Statement createStatement() throws SQLException {
		return guard(this.connection.createStatement(), Statement.class, null);
	}

	@Override
	public Statement createStatement(int resultSetType, int resultSetConcurrency) throws SQLException {
		return guard(this.connection.createStatement(resultSetType, resultSetConcurrency), Statement.class, null);
	}

	@Override
	public Statement createStatement(int resultSetType, int resultSetConcurrency, int resultSetHoldability)
			throws SQLException {
		return guard(this.connection.createStatement(resultSetType, resultSetConcurrency, resultSetHoldability),
				Statement.class, null);
	}

	@Override
	public PreparedStatement prepareStatement(String sql) throws SQLException {
		return guard(this.connection.prepareStatement(check(sql)), PreparedStatement.class, sql);
	}

	@Override
	public PreparedStatement prepareStatement(String sql, int resultSetType, int resultSetConcurrency)
			throws SQLException {
		return guard(this.connection.prepareStatement(check(sql), resultSetType, resultSetConcurrency),
				PreparedStatement.class, sql);
	}

	@Override
	public PreparedStatement prepareStatement(String sql, int resultSetType, int resultSetConcurrency,
			int resultSetHoldability) throws SQLException {
		return guard(this.connection.prepareStatement(check(sql), resultSetType, resultSetConcurrency,
				resultSetHoldability), PreparedStatement.class, sql);
	}

	@Override
	public PreparedStatement prepareStatement(String sql, int autoGeneratedKeys) throws SQLException {
		return guard(this.connection.prepareStatement(check(sql), autoGeneratedKeys), PreparedStatement.class, sql);
	}

	@Override
	public PreparedStatement prepareStatement(String sql, int[] columnIndexes) throws SQLException {
		return guard(this.connection.prepareStatement(check(sql), columnIndexes), PreparedStatement.class, sql);
	}

	@Override
	public PreparedStatement prepareStatement(String sql, String[] columnNames) throws SQLException {
		return guard(this.connection.prepareStatement(check(sql), columnNames), PreparedStatement.class, sql);
	}

	@Override
	public CallableStatement prepareCall(String sql) throws SQLException {
		check(sql);
		throw new IllegalStateException("unreachable");
	}

	@Override
	public CallableStatement prepareCall(String sql, int resultSetType, int resultSetConcurrency) throws SQLException {
		return prepareCall(sql);
	}

	@Override
	public CallableStatement prepareCall(String sql, int resultSetType, int resultSetConcurrency,
			int resultSetHoldability) throws SQLException {
		return prepareCall(sql);
	}

	/**
	 * Switching auto-commit on commits the read-only transaction, as JDBC requires; the next statement starts another.
	 */
	@Override
	public void setAutoCommit(boolean autoCommit) throws SQLException {
		if (autoCommit && !this.autoCommit) {
			commit();
		}
		this.autoCommit = autoCommit;
	}

	@Override
	public boolean getAutoCommit() {
		return this.autoCommit;
	}

	/** Stays read-only: the code (or its transaction manager, after a transaction) cannot switch it off. */
	@Override
	public void setReadOnly(boolean readOnly) {
		// always read-only
	}

	@Override
	public boolean isReadOnly() {
		return true;
	}

	/** Commits; the next statement begins the next transaction as the first ({@link FenceDialect#beginReferenceRead}). */
	@Override
	public void commit() throws SQLException {
		this.connection.commit();
		this.begun = false;
	}

	/**
	 * Rolls back; the next statement begins the next transaction as the first
	 * ({@link FenceDialect#beginReferenceRead}).
	 */
	@Override
	public void rollback() throws SQLException {
		this.connection.rollback();
		this.begun = false;
	}

	@Override
	public Savepoint setSavepoint() throws SQLException {
		return this.connection.setSavepoint();
	}

	@Override
	public Savepoint setSavepoint(String name) throws SQLException {
		return this.connection.setSavepoint(name);
	}

	/** Rolls the transaction back, releases what a statement took for the session and closes the connection. */
	@Override
	public void close() throws SQLException {
		if (this.connection.isClosed()) {
			return;
		}
		try {
			this.connection.rollback();
			this.connection.setAutoCommit(true);
			this.dialect.releaseSession(this.connection);
		}
		finally {
			this.connection.close();
		}
	}

	@Override
	public <T> T unwrap(Class<T> iface) throws SQLException {
		if (iface.isInstance(this)) {
			return iface.cast(this);
		}
		throw new SQLException("Not a wrapper for " + iface.getName());
	}

	@Override
	public boolean isWrapperFor(Class<?> iface) {
		return iface.isInstance(this);
	}

	/**
	 * A statement whose every SQL text (execute, executeQuery, executeUpdate, addBatch...) is checked first, and whose
	 * refusal by the database for want of a privilege (SQLSTATE {@code 42501}: with no tenant bound, a table other
	 * than a reference table) is raised as {@link NoTenantBoundException}.
	 * @param prepared the prepared statement's SQL, or {@code null} for a plain statement
	 */
	private <S extends Statement> S guard(S statement, Class<S> type, @Nullable String prepared) {
		InvocationHandler handler = (proxy, method, args) -> {
			String name = method.getName().toLowerCase(Locale.ROOT);
			String sql = prepared;
			if ((name.startsWith("execute") || name.equals("addbatch")) && args != null && args.length > 0
					&& args[0] instanceof String text) {
				sql = check(text);
			}
			else if (name.equals("getconnection")) {
				return this;
			}
			if (name.startsWith("execute") && !this.begun) {
				this.dialect.beginReferenceRead(this.connection, this.role);
				this.begun = true;
			}
			try {
				return method.invoke(statement, args);
			}
			catch (InvocationTargetException ex) {
				if (ex.getCause() instanceof SQLException failed && name.startsWith("execute")) {
					if (this.autoCommit) {
						// In auto-commit mode a failed statement leaves the next one alone, as a transaction of its
						// own would: the failed read-only transaction is rolled back and another begun.
						try {
							rollback();
						}
						catch (SQLException notRolledBack) {
							failed.addSuppressed(notRolledBack);
						}
					}
					if (INSUFFICIENT_PRIVILEGE.equals(failed.getSQLState())) {
						throw refusedByTheDatabase(sql, failed);
					}
				}
				throw ex.getCause();
			}
		};
		return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] { type }, handler));
	}

	private NoTenantBoundException refusedByTheDatabase(@Nullable String sql, SQLException refused) {
		return new NoTenantBoundException("the statement " + (sql != null ? "\"" + StatementClassifier.quoted(sql)
				+ "\" " : "") + "(with no tenant bound, shard '" + this.shardId + "' refused it: "
				+ (this.role != null ? "its transactions run as the role " + this.role + ", which may read the "
						+ "reference tables " + this.referenceTables + " only: " : "")
				+ refused.getMessage() + ")", refused);
	}

}
