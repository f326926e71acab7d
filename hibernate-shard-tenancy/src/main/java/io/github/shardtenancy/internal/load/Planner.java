package io.github.shardtenancy.internal.load;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import io.github.shardtenancy.LoadMeasure;
import io.github.shardtenancy.RebalanceProposal;
import io.github.shardtenancy.Rebalancer;
import io.github.shardtenancy.TenantLoad;
import io.github.shardtenancy.ShardLoad;

/**
 * The rebalancer's greedy planner (see {@link Rebalancer}): pure computation over measured figures. Stateless.
 */
final class Planner {

	private Planner() {
	}

	/**
	 * @param tenants every tenant's figures, with its owner
	 * @param shards the ACTIVE registered shards (the only sources and targets)
	 * @param fixed tenants never to move (pinned, with an override, not ACTIVE)
	 * @param measure what to balance
	 * @param band the band, a fraction of the median
	 * @param maxMoves the most moves to propose
	 * @return the moves, in order
	 */
	static List<RebalanceProposal.Move> plan(List<TenantLoad> tenants, List<ShardLoad> shards, Set<String> fixed,
			LoadMeasure measure, double band, int maxMoves) {
		Map<String, Long> values = new TreeMap<>();
		Map<String, List<TenantLoad>> movable = new HashMap<>();
		for (ShardLoad shard : shards) {
			values.put(shard.shardId(), 0L);
			movable.put(shard.shardId(), new ArrayList<>());
		}
		for (TenantLoad tenant : tenants) {
			Long value = values.get(tenant.shardId());
			if (value == null) {
				continue;
			}
			long load = Math.max(measure.of(tenant), 0);
			values.put(tenant.shardId(), value + load);
			if (load > 0 && !fixed.contains(tenant.tenantId())) {
				movable.get(tenant.shardId()).add(tenant);
			}
		}
		List<RebalanceProposal.Move> moves = new ArrayList<>();
		while (moves.size() < maxMoves && values.size() > 1 && !balanced(values, band)) {
			String target = values.entrySet().stream().min(Map.Entry.comparingByValue()).orElseThrow().getKey();
			RebalanceProposal.Move move = null;
			// From the most loaded shard down: the first that has a tenant whose move narrows the gap.
			List<String> sources = values.keySet().stream()
				.sorted(Comparator.comparing(values::get).reversed())
				.toList();
			for (String source : sources) {
				long gap = values.get(source) - values.get(target);
				if (gap <= 1) {
					break;
				}
				TenantLoad best = null;
				for (TenantLoad candidate : movable.get(source)) {
					long load = measure.of(candidate);
					if (load < gap && (best == null
							|| Math.abs(2 * load - gap) < Math.abs(2 * measure.of(best) - gap))) {
						best = candidate;
					}
				}
				if (best != null) {
					long load = measure.of(best);
					movable.get(source).remove(best);
					values.put(source, values.get(source) - load);
					values.put(target, values.get(target) + load);
					move = new RebalanceProposal.Move(best.tenantId(), source, target, load);
					break;
				}
			}
			if (move == null) {
				break;
			}
			moves.add(move);
		}
		return moves;
	}

	private static boolean balanced(Map<String, Long> values, double band) {
		List<ShardLoad> loads = new ArrayList<>();
		values.forEach((shardId, value) -> loads.add(new ShardLoad(shardId, null, value)));
		return Rebalancer.balanced(loads, LoadMeasure.TENANTS, band);
	}

	/**
	 * @param tenants every tenant's figures
	 * @param moves moves to apply
	 * @return the figures with each moved tenant on its target
	 */
	static List<TenantLoad> after(List<TenantLoad> tenants, List<RebalanceProposal.Move> moves) {
		Map<String, String> targets = new HashMap<>();
		moves.forEach(m -> targets.put(m.tenantId(), m.targetShardId()));
		return tenants.stream().map(t -> {
			String target = targets.get(t.tenantId());
			return target == null ? t : new TenantLoad(t.tenantId(), target, t.transactions(), t.rowsWritten(),
					t.nanosSpent(), t.rowsStored(), t.bytesStored());
		}).toList();
	}

}
