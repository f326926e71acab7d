package io.github.shardtenancy;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a move of one tenant to a shard would meet, read from both shards before it starts
 * ({@link TenantMover#check}): every problem that would make the move be refused or fail, and what it would copy.
 * Immutable; thread-safe.
 *
 * @param tenantId the tenant
 * @param sourceShardId the tenant's shard
 * @param targetShardId the shard it would move to
 * @param problems one sentence per problem, naming the shard, the table (and the column, key, trigger or row) and
 * the remedy: a missing table, column or primary key, a column whose type differs between the shards, a column only
 * the target has that no copied row fills, an application trigger the move's writes would fire, a row of another
 * tenant on the target with the same primary key or unique key as one of the tenant's rows, a tenant that is not
 * ACTIVE or already has a move; empty if the move would start and copy
 * @param rows the tenant's rows on the source per tenant table, in copy order (parents first); empty if the tables
 * could not be read
 * @param bytes the size of those rows in bytes as the source database estimates it (PostgreSQL:
 * {@code pg_column_size} of each row, TOASTed values included, headers and indexes not), or {@code -1} where it gives
 * no estimate (H2)
 */
public record MoveCheck(String tenantId, String sourceShardId, String targetShardId, List<String> problems,
		Map<String, Long> rows, long bytes) {

	/**
	 * @throws NullPointerException if an argument is {@code null}
	 */
	public MoveCheck {
		Objects.requireNonNull(tenantId, "tenantId");
		Objects.requireNonNull(sourceShardId, "sourceShardId");
		Objects.requireNonNull(targetShardId, "targetShardId");
		problems = List.copyOf(problems);
		rows = Collections.unmodifiableMap(new LinkedHashMap<>(rows));
	}

	/** @return whether nothing stands in the move's way ({@link #problems()} is empty) */
	public boolean passed() {
		return this.problems.isEmpty();
	}

	/** @return the tenant's rows on the source in every tenant table */
	public long totalRows() {
		return this.rows.values().stream().mapToLong(Long::longValue).sum();
	}

}
