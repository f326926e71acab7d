package io.github.shardtenancy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What a {@link TenantTasks#queryAllShards scatter-gather query} returned: the rows of every shard that answered in
 * time, merged in the order of the shard ids, and one status per shard.
 *
 * @param rows the merged rows; unmodifiable, never {@code null}
 * @param shards the status of each shard queried, by shard id in sorted order; unmodifiable, never {@code null}
 * @param elapsed the time the query took, at most a little over its time limit
 * @param <T> the row type
 */
public record ShardQueryResult<T>(List<T> rows, Map<String, Status> shards, Duration elapsed) {

	/** How one shard answered. */
	public enum Outcome {

		/** Its rows are in {@link ShardQueryResult#rows()}. */
		OK,

		/** The query failed on it (the shard was down, the SQL was wrong); none of its rows are returned. */
		FAILED,

		/** It did not answer within the time limit; the statement was cancelled and none of its rows returned. */
		TIMED_OUT

	}

	/**
	 * @param shardId the shard
	 * @param outcome how it answered; never {@code null}
	 * @param rows how many of its rows are in the result (0 unless {@link Outcome#OK})
	 * @param error the failure for {@link Outcome#FAILED}, otherwise {@code null}
	 */
	public record Status(String shardId, Outcome outcome, int rows, Throwable error) {

		public Status {
			Objects.requireNonNull(shardId, "shardId");
			Objects.requireNonNull(outcome, "outcome");
		}

	}

	public ShardQueryResult {
		rows = Collections.unmodifiableList(new ArrayList<>(rows));
		shards = Collections.unmodifiableMap(new TreeMap<>(shards));
		Objects.requireNonNull(elapsed, "elapsed");
	}

	/** @return whether every shard answered ({@link Outcome#OK}), so that the rows are complete */
	public boolean complete() {
		return this.shards.values().stream().allMatch((status) -> status.outcome() == Outcome.OK);
	}

}
