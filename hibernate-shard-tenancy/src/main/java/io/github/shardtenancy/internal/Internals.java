package io.github.shardtenancy.internal;

import java.util.Map;
import java.util.WeakHashMap;

import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.internal.directory.Directory;
import io.github.shardtenancy.internal.lifecycle.TenantLifecycle;
import io.github.shardtenancy.internal.move.Mover;
import io.github.shardtenancy.internal.placement.SlotMap;
import io.github.shardtenancy.internal.reconcile.Reconciler;
import io.github.shardtenancy.internal.routing.Router;
import io.github.shardtenancy.internal.topology.ShardRegistry;
import io.github.shardtenancy.internal.topology.Topology;

/**
 * The implementation objects behind a {@link ShardTenancy}, for the library's own tests, which check the
 * implementation. Not for applications: use the API that {@link ShardTenancy} offers; nothing here is stable.
 * Thread-safe.
 */
public final class Internals {

	private static final Map<ShardTenancy, Wiring> WIRINGS = new WeakHashMap<>();

	private Internals() {
	}

	/**
	 * Records the wiring of a tenancy; called by {@link ShardTenancy} when it is built.
	 * @param tenancy the tenancy
	 * @param wiring its wiring
	 */
	public static void register(ShardTenancy tenancy, Wiring wiring) {
		synchronized (WIRINGS) {
			WIRINGS.put(tenancy, wiring);
		}
	}

	/**
	 * @param tenancy a tenancy built by {@link ShardTenancy#builder()}
	 * @return its wiring
	 * @throws IllegalArgumentException if it was not built by the builder
	 */
	public static Wiring wiring(ShardTenancy tenancy) {
		synchronized (WIRINGS) {
			Wiring wiring = WIRINGS.get(tenancy);
			if (wiring == null) {
				throw new IllegalArgumentException("Not built by ShardTenancy.builder(): " + tenancy);
			}
			return wiring;
		}
	}

	/** @param tenancy a tenancy @return its directory */
	public static Directory directory(ShardTenancy tenancy) {
		return wiring(tenancy).directory();
	}

	/** @param tenancy a tenancy @return its router */
	public static Router router(ShardTenancy tenancy) {
		return wiring(tenancy).router();
	}

	/** @param tenancy a tenancy @return its topology */
	public static Topology topology(ShardTenancy tenancy) {
		return wiring(tenancy).topology();
	}

	/** @param tenancy a tenancy @return its mover (created on first use) */
	public static Mover mover(ShardTenancy tenancy) {
		return wiring(tenancy).mover();
	}

	/** @param tenancy a tenancy @return its lifecycle (created on first use) */
	public static TenantLifecycle lifecycle(ShardTenancy tenancy) {
		return wiring(tenancy).lifecycle();
	}

	/** @param tenancy a tenancy @return its shard registry */
	public static ShardRegistry registry(ShardTenancy tenancy) {
		return wiring(tenancy).registry();
	}

	/** @param tenancy a tenancy @return its slot map */
	public static SlotMap slots(ShardTenancy tenancy) {
		return wiring(tenancy).slots();
	}

	/** @param tenancy a tenancy @return its reconciler (created on first use) */
	public static Reconciler reconciler(ShardTenancy tenancy) {
		return wiring(tenancy).reconciler();
	}

}
