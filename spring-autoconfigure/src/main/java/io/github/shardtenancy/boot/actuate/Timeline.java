package io.github.shardtenancy.boot.actuate;

import java.util.List;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;

/**
 * The per-second timeline of the last few minutes, as the {@code shardtenancy} endpoint serves it
 * ({@code GET /actuator/shardtenancy/timeline/{seconds}}): transactions committed, retries and fence rejections per
 * second, in total and for each tenant being moved, and the freeze window of each move. Recorded by
 * {@link TimelineRecorder}. Immutable.
 *
 * @param fromEpochSecond the first second of the series, in seconds since the epoch (UTC)
 * @param toEpochSecond the last second of the series (the current one, still counting), in seconds since the epoch
 * @param windowSeconds the most seconds the recorder keeps ({@code shard-tenancy.timeline.window})
 * @param total every second from {@code fromEpochSecond} to {@code toEpochSecond}, oldest first, all transactions
 * @param tenants for each tenant with a move in the period: its seconds, counted while its move was running (zero
 * before the move started and after it ended), in the order the moves started
 * @param freezes the freeze window of each move frozen in the period, in the order the moves started
 */
public record Timeline(long fromEpochSecond, long toEpochSecond, int windowSeconds, List<Second> total,
		List<TenantSeries> tenants, List<FreezeWindow> freezes) implements OperationResponseBody {

	/**
	 * One second's counts.
	 *
	 * @param epochSecond the second, in seconds since the epoch (UTC)
	 * @param committedPerSecond read-write transactions committed in that second (read-only transactions are not
	 * counted)
	 * @param retriesPerSecond failed attempts about to be retried, by the library's retry
	 * @param fenceRejectionsPerSecond attempts a shard fence rejected (every reason)
	 */
	public record Second(long epochSecond, long committedPerSecond, long retriesPerSecond,
			long fenceRejectionsPerSecond) {
	}

	/**
	 * A tenant being moved, or moved in the period.
	 *
	 * @param tenant the tenant
	 * @param moveId its last move in the period
	 * @param sourceShard the shard that move takes it from
	 * @param targetShard the shard that move takes it to
	 * @param step the last step of that move recorded
	 * @param seconds the tenant's counts, aligned with {@link Timeline#total()}
	 */
	public record TenantSeries(String tenant, String moveId, String sourceShard, String targetShard, String step,
			List<Second> seconds) {
	}

	/**
	 * A move's freeze window: from the freeze (the tenant's writes refused) to the flip (or to the abort), with the
	 * times the move log recorded.
	 *
	 * @param tenant the tenant
	 * @param moveId the move
	 * @param sourceShard the shard the tenant was frozen on
	 * @param targetShard the shard the move takes it to
	 * @param frozenAtEpochMilli when the tenant was frozen, in milliseconds since the epoch
	 * @param endedAtEpochMilli when the freeze ended (flip or abort), in milliseconds since the epoch; {@code null}
	 * while the tenant is still frozen
	 * @param endedBy {@code FLIPPED} or {@code ABORTED}; {@code null} while the tenant is still frozen
	 */
	public record FreezeWindow(String tenant, String moveId, String sourceShard, String targetShard,
			long frozenAtEpochMilli, @Nullable Long endedAtEpochMilli, @Nullable String endedBy) {
	}

}
