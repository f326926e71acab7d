package io.github.shardtenancy;

import java.util.List;
import java.util.Map;

/**
 * What {@link Rebalancer#execute} or {@link Rebalancer#rebalance} did. Immutable.
 *
 * @param rounds proposals computed and executed (1 for {@link Rebalancer#execute})
 * @param moved the moves that flipped, in the order they finished
 * @param skipped moves not run, with why (the tenant was pinned, given an override, moved or deleted since the
 * proposal)
 * @param failed moves that failed, with the failure's message; the others ran on
 * @param maxConcurrent the most moves that ran at the same moment
 * @param balanced whether every shard was within the band of the median when it ended (as measured again;
 * {@code false} if not measured again)
 * @param last the last proposal computed
 */
public record RebalanceResult(int rounds, List<RebalanceProposal.Move> moved, Map<String, String> skipped,
		Map<String, String> failed, int maxConcurrent, boolean balanced, RebalanceProposal last) {

	public RebalanceResult {
		moved = List.copyOf(moved);
		skipped = Map.copyOf(skipped);
		failed = Map.copyOf(failed);
	}

}
