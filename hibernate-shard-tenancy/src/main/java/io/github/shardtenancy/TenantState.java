package io.github.shardtenancy;

/**
 * The state of a directory entry.
 *
 * <ul>
 * <li>{@link #ACTIVE}: reads and writes go to the owner shard.</li>
 * <li>{@link #MIGRATING}: a move is copying the tenant to the target shard; traffic still goes to the owner.</li>
 * <li>{@link #FROZEN}: the final step of a move; the owner shard's fence refuses the tenant's writes, which back off
 * and are retried until the flip; reads still go to the owner.</li>
 * <li>{@link #DELETED}: the tenant is gone; routers refuse it.</li>
 * </ul>
 */
public enum TenantState {

	/** Normal: reads and writes on the owner shard. */
	ACTIVE,

	/** Being copied to the target shard; still served by the owner. */
	MIGRATING,

	/** Writes refused by the owner's fence until the flip; reads still served. */
	FROZEN,

	/** Deleted; refused by routers. */
	DELETED

}
