package io.github.shardtenancy;

import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;

import org.hibernate.SessionFactory;
import org.hibernate.boot.spi.SessionFactoryOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a {@link SessionFactory}'s second-level cache and query cache coherent with a {@link TenantRouter}: when the
 * router is about to route a tenant to another shard, or by another state or epoch (a move, a delete, a re-created
 * tenant), and when it drops a tenant's entry after a shard fence rejection, this listener evicts the cached data
 * before the tenant is routed again, so that no transaction reads (and writes back) a value cached before the
 * tenant's rows changed on its new shard.
 *
 * <p>Hibernate's public {@link org.hibernate.Cache} API evicts by region, not by tenant, so an eviction empties every
 * entity, collection, natural-id and query result region ({@link org.hibernate.Cache#evictAllRegions()}) of the
 * session factory, for all tenants; the update timestamps are kept. Each eviction costs the re-reads of whatever the
 * instance had cached; tenant moves are rare. A change the router learns of with nothing to compare it with (a tenant
 * read for the first time, or a version that changes neither shard, state nor epoch) evicts nothing.
 *
 * <p>An instance that has not heard of a move yet still serves reads from its own cache until the move reaches its
 * router (the background sync, a push notification, or a rejected write of the tenant): like any per-instance
 * second-level cache, the cache is only as fresh as the instance's knowledge of the directory.
 *
 * <p>Thread-safe.
 */
public class SecondLevelCacheEviction implements RouteChangeListener, AutoCloseable {

	private static final Logger log = LoggerFactory.getLogger(SecondLevelCacheEviction.class);

	private final SessionFactory sessionFactory;

	private final LongAdder evictions = new LongAdder();

	private volatile TenantRouter router;

	/**
	 * @param sessionFactory the session factory whose caches to evict; never {@code null}
	 * @throws NullPointerException if {@code sessionFactory} is {@code null}
	 */
	public SecondLevelCacheEviction(SessionFactory sessionFactory) {
		this.sessionFactory = Objects.requireNonNull(sessionFactory, "sessionFactory");
	}

	/**
	 * @param sessionFactory a session factory; never {@code null}
	 * @return whether its second-level cache or its query cache is on (Hibernate's
	 * {@code hibernate.cache.use_second_level_cache}, which defaults to on when a region factory is configured or
	 * found on the class path, and {@code hibernate.cache.use_query_cache})
	 * @throws NullPointerException if {@code sessionFactory} is {@code null}
	 */
	public static boolean isCaching(SessionFactory sessionFactory) {
		SessionFactoryOptions options = sessionFactory.getSessionFactoryOptions();
		return options.isSecondLevelCacheEnabled() || options.isQueryCacheEnabled();
	}

	/**
	 * Registers this eviction as a listener of the router if the session factory caches anything
	 * ({@link #isCaching(SessionFactory)}); does nothing otherwise, or if it is registered already. Register before the
	 * session factory serves tenants.
	 * @param tenantRouter the router that routes the session factory's tenants; never {@code null}
	 * @return whether this eviction is registered with the router now
	 * @throws NullPointerException if {@code tenantRouter} is {@code null}
	 * @throws IllegalStateException if it is registered with another router
	 */
	public synchronized boolean register(TenantRouter tenantRouter) {
		Objects.requireNonNull(tenantRouter, "tenantRouter");
		if (this.router == tenantRouter) {
			return true;
		}
		if (this.router != null) {
			throw new IllegalStateException("Already registered with another router");
		}
		if (!isCaching(this.sessionFactory)) {
			return false;
		}
		tenantRouter.addChangeListener(this);
		this.router = tenantRouter;
		return true;
	}

	/** @return whether this eviction is registered with a router */
	public boolean isRegistered() {
		return this.router != null;
	}

	/** @return how many times the caches were evicted */
	public long evictions() {
		return this.evictions.sum();
	}

	@Override
	public void routeChanged(String tenantId, DirectoryEntry previous, DirectoryEntry current) {
		if (!mustEvict(previous, current) || this.sessionFactory.isClosed()) {
			return;
		}
		this.sessionFactory.getCache().evictAllRegions();
		this.evictions.increment();
		log.debug("Evicted the second-level and query caches: tenant '{}' routed by {} (was {})", tenantId, current,
				previous);
	}

	/**
	 * @param previous the entry the tenant was routed by, or {@code null} if not known
	 * @param current the entry it is about to be routed by, or {@code null} if dropped
	 * @return whether cached data of the tenant may be stale under {@code current}: the entry was dropped, or the
	 * shard, state or epoch changed
	 */
	static boolean mustEvict(DirectoryEntry previous, DirectoryEntry current) {
		if (current == null) {
			return true;
		}
		if (previous == null) {
			return false;
		}
		return !previous.shardId().equals(current.shardId()) || previous.state() != current.state()
				|| previous.epoch() != current.epoch();
	}

	/** Unregisters this eviction from its router, if registered. */
	@Override
	public synchronized void close() {
		TenantRouter registered = this.router;
		if (registered != null) {
			registered.removeChangeListener(this);
			this.router = null;
		}
	}

}
