package io.github.shardtenancy;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * What a move run to its flip by {@link io.github.shardtenancy.TenantMover#moveAndWait} did. Immutable and
 * thread-safe.
 *
 * @param moveId the move's id in the move log, never {@code null}
 * @param tenantId the tenant moved, never {@code null}
 * @param sourceShardId where it was, never {@code null}
 * @param targetShardId where it is now, never {@code null}
 * @param step {@link MoveStep#DONE}, or {@link MoveStep#FLIPPED} while the source waits for its clean delay; never
 * {@code null}
 * @param freezeVersion the directory version of the freeze
 * @param flipVersion the directory version of the flip (the new owner's minimum accepted version)
 * @param rowsCopied rows copied per table (table name to rows), in copy order (parents first); never {@code null}
 * @param freezeWindow how long the tenant's writes were refused, from the freeze to the flip as recorded in the move
 * log (millisecond precision); never {@code null}
 * @param total how long the whole move took on the calling thread; never {@code null}
 */
public record MoveResult(String moveId, String tenantId, String sourceShardId, String targetShardId, MoveStep step,
		long freezeVersion, long flipVersion, Map<String, Long> rowsCopied, Duration freezeWindow, Duration total) {

	/** @throws NullPointerException if a reference is {@code null} */
	public MoveResult {
		Objects.requireNonNull(moveId, "moveId");
		Objects.requireNonNull(tenantId, "tenantId");
		Objects.requireNonNull(sourceShardId, "sourceShardId");
		Objects.requireNonNull(targetShardId, "targetShardId");
		Objects.requireNonNull(step, "step");
		rowsCopied = Collections.unmodifiableMap(new LinkedHashMap<>(rowsCopied));
		Objects.requireNonNull(freezeWindow, "freezeWindow");
		Objects.requireNonNull(total, "total");
	}

	/** @return rows copied over all tables */
	public long totalRowsCopied() {
		return this.rowsCopied.values().stream().mapToLong(Long::longValue).sum();
	}

}
