package io.github.shardtenancy.internal.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.TenantSwitchedException;
import io.github.shardtenancy.retry.RetryAttempts;
import org.slf4j.MDC;

/**
 * Remembers, per thread, which tenant's shard connections are currently checked out, so that working as another
 * tenant on the same thread is refused before a statement runs. The connection provider calls {@link #checkSwitch}
 * before it borrows, {@link #acquired} after, and {@link #released} when Hibernate gives the connection back;
 * {@link io.github.shardtenancy.TenantContext#bind(String)} calls {@link #checkSwitch}.
 *
 * <p>A connection that was closed without being released (a leak cut short by the pool, a test that forgot to
 * release) no longer counts: the guard drops it when it next looks, so a thread is never pinned to a tenant by a
 * connection that is gone.
 *
 * <p>While a thread holds a tenant's shard connection (a transaction runs), the tenant and the shard are in the SLF4J
 * {@link MDC} under {@link TenantContext#MDC_TENANT} and {@link TenantContext#MDC_SHARD}, so that every log line of the
 * transaction carries them; when the thread's last connection is released, the values the MDC held before are put
 * back (removed if there were none). The retry attempt running on the thread, if any, is told the shard
 * ({@link RetryAttempts#routed(String)}).
 */
public final class ConnectionGuard {

	private static final ThreadLocal<Held> HELD = new ThreadLocal<>();

	private ConnectionGuard() {
	}

	/**
	 * @param requestedTenant the tenant the code wants to work as
	 * @throws TenantSwitchedException if an open connection of another tenant is checked out on this thread
	 */
	public static void checkSwitch(String requestedTenant) {
		Held held = live();
		if (held != null && !held.tenantId.equals(requestedTenant)) {
			throw new TenantSwitchedException(held.tenantId, requestedTenant, held.shardId);
		}
	}

	/**
	 * Registers a connection handed out for a tenant.
	 * @param tenantId the tenant
	 * @param shardId its shard
	 * @param connection the connection
	 * @throws TenantSwitchedException if an open connection of another tenant is checked out on this thread
	 */
	public static void acquired(String tenantId, String shardId, Connection connection) {
		checkSwitch(tenantId);
		Held held = HELD.get();
		if (held == null) {
			held = new Held(tenantId, shardId);
			HELD.set(held);
			MDC.put(TenantContext.MDC_TENANT, tenantId);
			MDC.put(TenantContext.MDC_SHARD, shardId);
		}
		held.connections.add(connection);
		RetryAttempts.routed(shardId);
	}

	/** @param connection a connection registered with {@link #acquired}, now released */
	public static void released(Connection connection) {
		Held held = HELD.get();
		if (held != null) {
			List<Connection> connections = held.connections;
			for (int i = connections.size() - 1; i >= 0; i--) {
				if (connections.get(i) == connection) {
					connections.remove(i);
				}
			}
			if (held.connections.isEmpty()) {
				HELD.remove();
				held.restoreMdc();
			}
		}
	}

	/** @return the tenant whose open connection is checked out on this thread, or {@code null} */
	public static String heldTenant() {
		Held held = live();
		return held != null ? held.tenantId : null;
	}

	private static Held live() {
		Held held = HELD.get();
		if (held == null) {
			return null;
		}
		held.connections.removeIf(ConnectionGuard::isClosed);
		if (held.connections.isEmpty()) {
			HELD.remove();
			held.restoreMdc();
			return null;
		}
		return held;
	}

	private static boolean isClosed(Connection connection) {
		try {
			return connection.isClosed();
		}
		catch (SQLException ex) {
			return true;
		}
	}

	private static final class Held {

		final String tenantId;

		final String shardId;

		final List<Connection> connections = new ArrayList<>(2);

		/** The MDC's values before this tenant's first connection was acquired, put back after the last release. */
		private final String previousTenant;

		private final String previousShard;

		Held(String tenantId, String shardId) {
			this.tenantId = tenantId;
			this.shardId = shardId;
			this.previousTenant = MDC.get(TenantContext.MDC_TENANT);
			this.previousShard = MDC.get(TenantContext.MDC_SHARD);
		}

		void restoreMdc() {
			restore(TenantContext.MDC_TENANT, this.previousTenant);
			restore(TenantContext.MDC_SHARD, this.previousShard);
		}

		private static void restore(String key, String value) {
			if (value != null) {
				MDC.put(key, value);
			}
			else {
				MDC.remove(key);
			}
		}

	}

}
