package io.github.shardtenancy.spi;

import javax.sql.DataSource;

/**
 * Told when a shard's pool joins or leaves a tenancy's topology: the shards given to the builder when the tenancy is
 * built, shards registered at runtime ({@code TenantAdmin.registerShard}), shards registered by other instances that
 * this one connects to ({@link ShardPoolFactory}), and shards retired or dropped. For example, a metrics binder uses
 * it to instrument every shard pool (the {@code ShardPoolMetrics} of {@code hibernate-shard-tenancy-micrometer}).
 *
 * <p>Contract for implementations: called on the thread that changes the topology (the builder's, an administration
 * call's, the registry sync's), possibly from several at once, so thread-safe; fast; must not throw (an exception is
 * logged and swallowed, and never keeps a shard out of the topology). {@link #NONE} does nothing. Listeners are added with
 * {@code ShardTenancyBuilder.shardPoolListener}; each is told every change, in the order added.
 */
public interface ShardPoolListener {

	/** Does nothing. */
	ShardPoolListener NONE = new ShardPoolListener() {
	};

	/**
	 * A shard joined the topology, before any work is routed to it.
	 * @param shardId the shard's logical id; never {@code null}
	 * @param pool its pool, already started; never {@code null}
	 */
	default void poolAdded(String shardId, DataSource pool) {
	}

	/**
	 * A shard left the topology (retired, dropped after a failed registration, or the tenancy closed); a pool the
	 * topology owns is closed right after this call.
	 * @param shardId the shard's logical id; never {@code null}
	 * @param pool its pool; never {@code null}
	 */
	default void poolRemoved(String shardId, DataSource pool) {
	}

}
