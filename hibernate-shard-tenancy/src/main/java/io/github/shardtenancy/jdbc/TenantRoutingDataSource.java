package io.github.shardtenancy.jdbc;

import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Objects;
import java.util.logging.Logger;

import javax.sql.DataSource;

import io.github.shardtenancy.NoTenantBoundException;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.hibernate.ShardMultiTenantConnectionProvider;

/**
 * A {@link DataSource} that hands out a connection of the current tenant's shard, prepared exactly as for Hibernate
 * (fence checked, session variables bound), so that plain JDBC code ({@code JdbcTemplate}, jOOQ) is routed and fenced
 * like JPA code. Closing the connection clears the variables and returns it to the shard's pool.
 *
 * <p>{@link #getConnection()} requires a tenant bound through {@link TenantContext} and raises
 * {@link NoTenantBoundException} otherwise. Thread-safe.
 */
public class TenantRoutingDataSource implements DataSource {

	private final ShardMultiTenantConnectionProvider provider;

	/** @param provider the provider that routes and prepares connections */
	public TenantRoutingDataSource(ShardMultiTenantConnectionProvider provider) {
		this.provider = Objects.requireNonNull(provider, "provider");
	}

	/**
	 * @return a connection of the bound tenant's shard; close it to release it
	 * @throws NoTenantBoundException if no tenant is bound on this thread
	 * @throws SQLException on a fence rejection (SQLSTATE 40001) or a database error
	 */
	@Override
	public Connection getConnection() throws SQLException {
		String tenant = TenantContext.require("a connection from the tenant-routing DataSource");
		Connection connection = this.provider.getConnection(tenant);
		return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { Connection.class },
				(proxy, method, args) -> {
					switch (method.getName()) {
						case "close" -> {
							if (!connection.isClosed()) {
								this.provider.releaseConnection(tenant, connection);
							}
							return null;
						}
						case "unwrap" -> {
							if (((Class<?>) args[0]).isInstance(proxy)) {
								return proxy;
							}
						}
						case "equals" -> {
							return proxy == args[0];
						}
						case "hashCode" -> {
							return System.identityHashCode(proxy);
						}
						default -> {
						}
					}
					try {
						return method.invoke(connection, args);
					}
					catch (InvocationTargetException ex) {
						throw ex.getTargetException();
					}
				});
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
