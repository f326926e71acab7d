package io.github.shardtenancy;

/** The state of a registered shard. */
public enum ShardState {

	/** Migrated and eligible for placement and moves. */
	ACTIVE,

	/** Owns nothing and never will again; its pools are closed. */
	RETIRED

}
