package io.github.shardtenancy.admin;

import java.time.Duration;
import java.util.Map;

/**
 * What a completed move did.
 *
 * @param tenantId the tenant moved
 * @param sourceShardId where it was
 * @param targetShardId where it is now
 * @param freezeVersion the directory version of the freeze
 * @param flipVersion the directory version of the flip (the new owner's minimum accepted version)
 * @param rowsCopied rows copied per table (table name to rows)
 * @param freezeWindow how long the tenant's writes were refused: from the freeze's directory commit to the flip's
 * @param total how long the whole move took
 */
public record MoveResult(String tenantId, String sourceShardId, String targetShardId, long freezeVersion,
		long flipVersion, Map<String, Long> rowsCopied, Duration freezeWindow, Duration total) {

	public MoveResult {
		rowsCopied = Map.copyOf(rowsCopied);
	}

	/** @return rows copied over all tables */
	public long totalRowsCopied() {
		return this.rowsCopied.values().stream().mapToLong(Long::longValue).sum();
	}

}
