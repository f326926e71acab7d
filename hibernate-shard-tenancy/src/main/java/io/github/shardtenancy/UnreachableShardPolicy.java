package io.github.shardtenancy;

/**
 * What the start does with a configured shard whose database cannot be reached
 * ({@link ShardTenancyBuilder#unreachableShards(UnreachableShardPolicy, java.time.Duration)}).
 */
public enum UnreachableShardPolicy {

	/**
	 * The build fails with a {@link ShardTenancyConfigurationException} naming the shard, its URL setting and the
	 * database's error. The default: a deploy against a wrong URL stops at once.
	 */
	FAIL,

	/**
	 * The tenancy starts without the shard: its tenants' work raises {@link ShardUnavailableException} (nothing runs),
	 * and the shard is tried again in the background; once it answers it is migrated, its fence installed and its
	 * tenants served, without a restart. Reference writes fail meanwhile (they reach every shard or none), and reads
	 * with no tenant bound go to the other shards.
	 */
	START_WITHOUT

}
