package io.github.shardtenancy.sample.live;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import io.github.shardtenancy.MoveStatus;
import io.github.shardtenancy.RouterStats;

/**
 * What the live page shows, as one JSON document ({@code GET /live/api/state}). Immutable.
 *
 * @param at when it was read
 * @param directoryVersion the directory version in the directory database
 * @param routerVersion the directory version this instance's router holds
 * @param shards every shard of the topology, in the topology's order
 * @param moves the moves started from the page, newest first, then other unfinished moves
 * @param retries what the library's retry saw, since start-up
 * @param router this instance's router counters, since start-up
 * @param bursts the last bursts of writers, newest first
 */
public record LiveState(Instant at, long directoryVersion, long routerVersion, List<Shard> shards, List<Move> moves,
		Retries retries, RouterStats router, List<Burst> bursts) {

	/**
	 * A shard: the tenants the directory places on it, and the tenants that only have rows on it (a move's copy
	 * before the flip, or the source's rows before the clean).
	 *
	 * @param id the shard id
	 * @param orders rows of the {@code orders} table on the shard, all tenants
	 * @param tenants the tenants the directory names this shard as owner of, by id
	 * @param copies tenants with rows here whose owner is another shard, by id
	 */
	public record Shard(String id, long orders, List<Tenant> tenants, List<Tenant> copies) {
	}

	/**
	 * A tenant as the directory has it, with its rows on one shard.
	 *
	 * @param id the tenant id
	 * @param state ACTIVE, MIGRATING, FROZEN or DELETED
	 * @param targetShard the shard a move takes it to, or {@code null}
	 * @param epoch the entry's epoch
	 * @param version the directory version of the entry's last change
	 * @param orders the tenant's rows in {@code orders} on this shard
	 */
	public record Tenant(String id, String state, String targetShard, long epoch, long version, long orders) {
	}

	/**
	 * A move.
	 *
	 * @param moveId the move's id, or {@code null} while the mover has not recorded it yet
	 * @param tenant the tenant
	 * @param source the shard it leaves, or {@code null} while not recorded
	 * @param target the shard it goes to
	 * @param step the last step completed ({@code REQUESTED} while not recorded yet, {@code FAILED} if it failed
	 * before being recorded)
	 * @param stepData progress within the step, or {@code null}
	 * @param error the last failure, or {@code null}
	 * @param finished whether the move ended (DONE, ABORTED, or failed before being recorded)
	 * @param freezeWindowMs freeze to flip in ms once flipped, else {@code null}
	 * @param stepPauseMs the pause after each step the page asked for, or {@code null} for a move started elsewhere
	 */
	public record Move(String moveId, String tenant, String source, String target, String step, String stepData,
			String error, boolean finished, Long freezeWindowMs, Long stepPauseMs) {

		static Move of(LiveMoves.Request request, MoveStatus status) {
			Long pause = (request != null) ? request.stepPauseMs : null;
			String requestError = (request != null) ? request.error : null;
			if (status == null) {
				boolean failed = requestError != null;
				return new Move(null, request.tenantId, null, request.targetShardId, failed ? "FAILED" : "REQUESTED",
						null, requestError, failed, null, pause);
			}
			String error = (requestError != null) ? requestError : status.error();
			return new Move(status.moveId(), status.tenantId(), status.sourceShardId(), status.targetShardId(),
					status.step().name(), status.stepData(), error, status.isFinished(),
					status.freezeWindow().map(d -> d.toMillis()).orElse(null), pause);
		}

	}

	/**
	 * What the library's retry saw, counted by the sample's {@link io.github.shardtenancy.sample.demo.RetryObserver}.
	 *
	 * @param attempts attempts of outermost transactions, first attempts included
	 * @param retries attempts after a failed one
	 * @param rejections failed attempts the shard fence rejected, all reasons
	 * @param rejectionsByReason failed attempts the shard fence rejected, by reason
	 * @param serializationFailures failed attempts that were genuine serialization failures
	 * @param otherFailures other failed attempts
	 */
	public record Retries(long attempts, long retries, long rejections, Map<String, Long> rejectionsByReason,
			long serializationFailures, long otherFailures) {
	}

	/**
	 * A burst of writers.
	 *
	 * @param id the burst's number
	 * @param tenant the tenant written for
	 * @param threads writer threads
	 * @param ordersPerThread orders each thread places
	 * @param pauseMs milliseconds each thread waits after each order
	 * @param committed orders committed
	 * @param failed orders that failed
	 * @param failuresByType failed orders by exception type
	 * @param lastError the last failure, or {@code null}
	 * @param running writer threads still running
	 * @param stopped whether the burst was asked to stop
	 * @param startedAt when it started
	 */
	public record Burst(int id, String tenant, int threads, int ordersPerThread, int pauseMs, long committed, long failed,
			Map<String, Long> failuresByType, String lastError, int running, boolean stopped, Instant startedAt) {

		static Burst of(LiveBursts.Burst burst) {
			Map<String, Long> failures = burst.failuresByType();
			return new Burst(burst.id, burst.tenantId, burst.threads, burst.ordersPerThread, burst.pauseMs,
					burst.committed.sum(),
					failures.values().stream().mapToLong(Long::longValue).sum(), failures, burst.lastError,
					burst.running.get(), burst.stopped, burst.startedAt);
		}

	}

}
