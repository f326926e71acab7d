package io.github.shardtenancy.internal;

import io.github.shardtenancy.TenantSwitchedException;

/**
 * Remembers, per thread, which tenant's shard connection is currently held, so that working as another tenant on the
 * same thread is refused before a statement runs. The connection provider registers on every checkout and
 * unregisters on release; {@link io.github.shardtenancy.TenantContext#bind(String)} consults it.
 */
public final class ConnectionGuard {

	private static final ThreadLocal<Held> HELD = new ThreadLocal<>();

	private ConnectionGuard() {
	}

	/** Called by the provider when a connection for {@code tenantId} on {@code shardId} is handed out. */
	public static void acquired(String tenantId, String shardId) {
		Held held = HELD.get();
		if (held == null) {
			HELD.set(new Held(tenantId, shardId));
		}
		else if (!held.tenantId.equals(tenantId)) {
			throw new TenantSwitchedException(held.tenantId, tenantId, held.shardId);
		}
		else {
			held.count++;
		}
	}

	/** Called by the provider when a connection handed out by {@link #acquired} is released. */
	public static void released() {
		Held held = HELD.get();
		if (held != null && --held.count == 0) {
			HELD.remove();
		}
	}

	/**
	 * @param requestedTenant the tenant the code wants to work as
	 * @throws TenantSwitchedException if a connection of another tenant is held on this thread
	 */
	public static void checkSwitch(String requestedTenant) {
		Held held = HELD.get();
		if (held != null && !held.tenantId.equals(requestedTenant)) {
			throw new TenantSwitchedException(held.tenantId, requestedTenant, held.shardId);
		}
	}

	/** @return the tenant whose connection is held on this thread, or {@code null} */
	public static String heldTenant() {
		Held held = HELD.get();
		return held != null ? held.tenantId : null;
	}

	private static final class Held {

		final String tenantId;

		final String shardId;

		int count = 1;

		Held(String tenantId, String shardId) {
			this.tenantId = tenantId;
			this.shardId = shardId;
		}

	}

}
