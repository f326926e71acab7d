package io.github.shardtenancy;

import java.util.List;

/**
 * Proposes and runs tenant moves that bring every ACTIVE registered shard within a band of the median shard load
 * (by a {@link LoadMeasure}). Pinned tenants ({@link TenantAdmin#pin}) and tenants with an override are never
 * proposed; nor are tenants that are not ACTIVE (moving ones). Moves run through the {@link TenantMover}, at most
 * {@link RebalanceSettings#maxConcurrentMoves()} at once, with {@link RebalanceSettings#pause()} between starts. Obtained
 * from {@link ShardTenancy#rebalancer()}. Thread-safe; executions are serialised.
 *
 * <p>The planner is greedy: while the most loaded shard is above the band or the least loaded below it, it moves
 * from the most loaded shard to the least loaded the tenant whose load best halves their difference, as long as the
 * move narrows it. It aims at the mean, which the median equals once the shards are balanced.
 */
public interface Rebalancer {

	/**
	 * Measures ({@link TenantLoads#measure()}) and proposes; moves nothing.
	 * @param settings the measure, band and the most moves to propose
	 * @return the proposal; never {@code null}
	 * @throws DirectoryUnavailableException if the directory cannot be read
	 */
	RebalanceProposal propose(RebalanceSettings settings);

	/**
	 * Runs a proposal's moves (each on the calling thread's pool of at most {@code maxConcurrentMoves} threads, as
	 * {@link TenantMover#moveAndWait}); a move whose tenant is pinned, has an override, is no longer ACTIVE or no
	 * longer on the proposal's source shard is skipped; a failing move is recorded and the others run on. Returns when
	 * every move ended.
	 * @param proposal a proposal of {@link #propose}
	 * @param settings concurrency, pause and move settings
	 * @return what was done; {@link RebalanceResult#balanced()} as measured afterwards
	 * @throws DirectoryUnavailableException if the directory cannot be read
	 */
	RebalanceResult execute(RebalanceProposal proposal, RebalanceSettings settings);

	/**
	 * Proposes and executes, round after round, until the shards are balanced, a round moves nothing, or
	 * {@code maxRounds} rounds ran.
	 * @param settings how to balance
	 * @param maxRounds at most this many rounds, at least 1
	 * @return all the rounds' moves, skips and failures
	 * @throws IllegalArgumentException if {@code maxRounds} is less than 1
	 * @throws DirectoryUnavailableException if the directory cannot be read
	 */
	RebalanceResult rebalance(RebalanceSettings settings, int maxRounds);

	/**
	 * @param shards shard loads
	 * @param measure the measure compared
	 * @param band the band, a fraction of the median
	 * @return whether every shard's value is within {@code max(band * median, 1)} of the median (at least 1, so that
	 * loads counted in ones, such as a few tenants, can be balanced)
	 */
	static boolean balanced(List<ShardLoad> shards, LoadMeasure measure, double band) {
		if (shards.isEmpty()) {
			return true;
		}
		long[] values = shards.stream().mapToLong(s -> s.value(measure)).sorted().toArray();
		double median = median(values);
		double tolerance = Math.max(band * median, 1);
		return values[0] >= median - tolerance && values[values.length - 1] <= median + tolerance;
	}

	/**
	 * @param sorted values in ascending order, at least one
	 * @return their median
	 */
	static double median(long[] sorted) {
		int n = sorted.length;
		return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0;
	}

}
