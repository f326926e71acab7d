package io.github.shardtenancy;

import java.util.List;
import java.util.Set;

import javax.sql.DataSource;

/**
 * The topology: logical shard id to a connection pool on that shard's database. The directory names only logical ids,
 * so a failover or a new host changes the topology, never the directory.
 *
 * <p>Obtained from {@link ShardTenancy#topology()}. Thread-safe.
 */
public interface ShardTopology {

	/** @return the ids of the shards, sorted; an unmodifiable snapshot, never {@code null} */
	Set<String> shardIds();

	/**
	 * @param shardId the logical shard id
	 * @return whether a shard has this id
	 */
	boolean contains(String shardId);

	/**
	 * The pool of one shard, for work that is not a tenant's (for example reading every shard for a report). Its
	 * connections carry no tenant: the shard fence rejects tenant work on them.
	 * @param shardId the logical shard id; never {@code null}
	 * @return the shard's pool; never {@code null}
	 * @throws UnknownShardException if no shard has this id
	 */
	DataSource dataSource(String shardId);

	/**
	 * The configured shards that could not be reached at start-up and have not answered since
	 * ({@link UnreachableShardPolicy#START_WITHOUT}): not in {@link #shardIds()} until they answer and are migrated
	 * and prepared; their tenants' work raises {@link ShardUnavailableException} meanwhile. The default answers none.
	 * @return their ids, sorted; a snapshot, never {@code null}
	 */
	default Set<String> pendingShardIds() {
		return Set.of();
	}

	/**
	 * The read replicas of every shard, with their last measured lag. The default, for topologies without replicas,
	 * answers none.
	 * @return the replicas, sorted by shard id and then in the order they were added; a snapshot, never {@code null}
	 */
	default List<ReplicaStatus> replicas() {
		return List.of();
	}

}
