package io.github.shardtenancy.internal.hibernate;

import io.github.shardtenancy.internal.jdbc.TenantConnection;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Objects;
import java.util.logging.Logger;

import javax.sql.DataSource;

import io.github.shardtenancy.NoTenantBoundException;
import io.github.shardtenancy.TenantContext;

/**
 * A {@link DataSource} that hands out a connection of the current tenant's shard, prepared exactly as for Hibernate
 * (fence checked, session variables bound), so that plain JDBC code ({@code JdbcTemplate}, jOOQ) is routed and fenced
 * like JPA code. Closing the connection clears the variables and returns it to the shard's pool.
 *
 * <p>A connection starts in auto-commit mode, as JDBC requires, and honours it on every shard database: each statement
 * executed in auto-commit mode (for example by {@code JdbcTemplate}, {@code NamedParameterJdbcTemplate} or
 * {@code JdbcClient} outside a transaction) is fenced and committed before the call returns, or rolled back if it
 * fails. After {@code setAutoCommit(false)} the code (or Spring's {@code JdbcTransactionManager}) commits. Statements
 * of another tenant (one bound on the thread after the connection was taken) raise
 * {@link io.github.shardtenancy.TenantSwitchedException}; {@code TRUNCATE} and DDL raise
 * {@link io.github.shardtenancy.CrossTenantStatementException}.
 *
 * <p>{@link #getConnection()} with no tenant bound through {@link TenantContext} hands out a read-only connection for
 * the reference tables only, when some are declared (see
 * {@link ShardMultiTenantConnectionProvider#referenceConnection(String)}), and raises {@link NoTenantBoundException}
 * otherwise. Thread-safe.
 */
public class TenantRoutingDataSource implements DataSource {

	private final ShardMultiTenantConnectionProvider provider;

	/** @param provider the provider that routes and prepares connections */
	public TenantRoutingDataSource(ShardMultiTenantConnectionProvider provider) {
		this.provider = Objects.requireNonNull(provider, "provider");
	}

	/**
	 * @return a connection of the bound tenant's shard; close it to release it
	 * @throws NoTenantBoundException if no tenant is bound on this thread and no reference tables are declared
	 * @throws SQLException on a fence rejection (SQLSTATE 40001) or a database error
	 */
	@Override
	public Connection getConnection() throws SQLException {
		String tenant = TenantContext.current();
		if (tenant == null) {
			return this.provider.referenceConnection("a connection from the tenant-routing DataSource");
		}
		Connection connection = this.provider.getConnection(tenant);
		TenantConnection.releaseOnClose(connection, () -> this.provider.releaseConnection(tenant, connection));
		return connection;
	}

	/** @throws SQLFeatureNotSupportedException always: credentials belong to each shard's pool */
	@Override
	public Connection getConnection(String username, String password) throws SQLException {
		throw new SQLFeatureNotSupportedException("Credentials are configured per shard");
	}

	@Override
	public PrintWriter getLogWriter() {
		return null;
	}

	@Override
	public void setLogWriter(PrintWriter out) {
	}

	@Override
	public void setLoginTimeout(int seconds) {
	}

	@Override
	public int getLoginTimeout() {
		return 0;
	}

	@Override
	public Logger getParentLogger() throws SQLFeatureNotSupportedException {
		throw new SQLFeatureNotSupportedException();
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

}
