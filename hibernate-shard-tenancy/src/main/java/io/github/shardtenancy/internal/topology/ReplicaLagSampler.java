package io.github.shardtenancy.internal.topology;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Measures the lag of every replica of the topology, in the background (one {@link #run()} per sample interval, never
 * per transaction).
 *
 * <p>Each run reads, per shard with replicas, the primary's log insert position ({@code FenceDialect.logPosition}),
 * remembering it with the time just before the read, then each replica's replayed position
 * ({@code FenceDialect.replayPosition}). A replica that has replayed up to a remembered primary position holds every
 * transaction the primary had committed at that position's time, so it is behind by at most the time since then: the
 * lag is measured by comparing log positions, as a bound that errs on the high side (by up to one sample interval),
 * and that does not grow on an idle primary as the time since the last replayed commit would. A replica that
 * cannot be reached, is no longer a replica (promoted), or is behind every remembered position, is unusable until a
 * later run finds it caught up. Run by one thread at a time.
 */
public final class ReplicaLagSampler implements Runnable {

	private static final Logger log = LoggerFactory.getLogger(ReplicaLagSampler.class);

	private final Topology topology;

	private final long historyNanos;

	private final Map<String, ArrayDeque<long[]>> history = new ConcurrentHashMap<>();

	/**
	 * @param topology the shards and their replicas
	 * @param keep how long primary positions are remembered: at least the maximum lag routing accepts, since a replica
	 * behind every remembered position counts as unusable
	 */
	public ReplicaLagSampler(Topology topology, java.time.Duration keep) {
		this.topology = topology;
		this.historyNanos = keep.toNanos();
	}

	@Override
	public void run() {
		for (String shardId : this.topology.shardIds()) {
			List<Replica> replicas = this.topology.replicas(shardId);
			if (!replicas.isEmpty()) {
				try {
					sample(shardId, replicas);
				}
				catch (RuntimeException ex) {
					log.warn("Sampling the replica lag of shard '{}' failed: {}", shardId, ex.toString());
				}
			}
		}
	}

	private void sample(String shardId, List<Replica> replicas) {
		Topology.Shard primary = this.topology.find(shardId).orElse(null);
		if (primary == null) {
			return;
		}
		ArrayDeque<long[]> positions = this.history.computeIfAbsent(shardId, id -> new ArrayDeque<>());
		long before = System.nanoTime();
		try (Connection c = primary.dataSource().getConnection()) {
			long position = primary.dialect().logPosition(c);
			positions.addLast(new long[] { before, position });
		}
		catch (SQLException ex) {
			// Without the primary's position no replica's lag is known; the primary is down, so reads fail either way.
			replicas.forEach(replica -> replica.unusable("primary position unknown: " + ex.getMessage()));
			return;
		}
		while (positions.size() > 1 && before - positions.peekFirst()[0] > this.historyNanos) {
			positions.removeFirst();
		}
		for (Replica replica : replicas) {
			long replayed;
			try (Connection c = replica.dataSource().getConnection()) {
				replayed = primary.dialect().replayPosition(c);
			}
			catch (SQLException ex) {
				replica.unusable("unreachable: " + ex.getMessage());
				continue;
			}
			if (replayed < 0) {
				replica.unusable("not in recovery (promoted?): it no longer replays shard '" + shardId + "'");
				continue;
			}
			long caughtUpTo = 0;
			for (Iterator<long[]> it = positions.descendingIterator(); it.hasNext();) {
				long[] sample = it.next();
				if (sample[1] <= replayed) {
					caughtUpTo = sample[0];
					break;
				}
			}
			if (caughtUpTo == 0) {
				replica.unusable("behind every primary position of the last " + this.historyNanos / 1_000_000 + " ms");
			}
			else {
				replica.caughtUp(caughtUpTo);
			}
		}
	}

}
