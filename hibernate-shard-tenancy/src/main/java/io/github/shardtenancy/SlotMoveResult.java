package io.github.shardtenancy;

import java.util.List;

/**
 * What a slot move did.
 *
 * @param slot the slot
 * @param fromShardId the shard the slot was assigned to before
 * @param toShardId the shard it is assigned to now
 * @param moved the tenants moved to {@code toShardId}, in the order moved
 * @param pinned the slot's tenants left where they are because they are pinned
 * @param overridden the slot's tenants left where they are because an override places them
 * @param skipped the slot's tenants not moved because they are not ACTIVE (a move in progress, or DELETED)
 */
public record SlotMoveResult(int slot, String fromShardId, String toShardId, List<String> moved, List<String> pinned,
		List<String> overridden, List<String> skipped) {

	public SlotMoveResult {
		moved = List.copyOf(moved);
		pinned = List.copyOf(pinned);
		overridden = List.copyOf(overridden);
		skipped = List.copyOf(skipped);
	}

}
