package io.github.shardtenancy;

import java.util.List;
import java.util.Objects;

/**
 * What the {@link Rebalancer} proposes: moves that bring the shards' loads towards the median, and the loads before
 * and (as projected) after them. Immutable.
 *
 * @param measure what was balanced
 * @param band the band, a fraction of the median
 * @param before every ACTIVE registered shard's load as measured, sorted by shard id
 * @param moves the moves proposed, in the order to run them; empty when balanced or nothing can be moved
 * @param after the loads once the moves are done, as projected from the measured figures
 * @param medianBefore the median shard load before the moves
 * @param medianAfter the projected median after them
 * @param balancedAfter whether every shard is projected within the band of the median after them
 * @param directoryVersion the directory version the proposal was computed at
 */
public record RebalanceProposal(LoadMeasure measure, double band, List<ShardLoad> before, List<Move> moves,
		List<ShardLoad> after, double medianBefore, double medianAfter, boolean balancedAfter,
		long directoryVersion) {

	public RebalanceProposal {
		Objects.requireNonNull(measure, "measure");
		before = List.copyOf(before);
		moves = List.copyOf(moves);
		after = List.copyOf(after);
	}

	/** @return whether every shard is within the band of the median now (no move is needed) */
	public boolean balancedBefore() {
		return Rebalancer.balanced(this.before, this.measure, this.band);
	}

	/**
	 * One proposed move.
	 *
	 * @param tenantId the tenant, ACTIVE, neither pinned nor given an override
	 * @param sourceShardId the shard it is on
	 * @param targetShardId the shard to move it to
	 * @param load its value of the measure
	 */
	public record Move(String tenantId, String sourceShardId, String targetShardId, long load) {
	}

}
