package io.github.shardtenancy.internal.fence;

/**
 * A tenant's state in one shard's fence table ({@code shard_fence}), which is what the shard itself enforces.
 */
public enum FenceState {

	/** The shard owns the tenant: reads and writes accepted from routes at or above the fence's minimum version. */
	OWNED,

	/** The shard owns the tenant but a move froze it: reads accepted, writes rejected. */
	FROZEN,

	/** A move is copying the tenant here: only the mover's connection may write; routed work is rejected. */
	INCOMING,

	/** The tenant moved away (or was never here): all routed work is rejected. */
	MOVED

}
