package io.github.shardtenancy;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The dual read of moving tenants: while a tenant is being moved (its entry {@link TenantState#MIGRATING} or
 * {@link TenantState#FROZEN}, with a target shard), a read-only query the application chose also runs on the
 * target shard, and its rows are compared with the same query's rows on the source. A difference is counted (the
 * observers' {@code dualRead} event, the {@code shardtenancy.dualread} counter) and logged; it never changes what the
 * application read, which it reads as usual, before or after calling {@link #compare}.
 *
 * <p>A comparison runs on its own threads, on read-only connections of its own to both shards (outside the
 * application's transaction, which it never touches), within {@link DualReadSettings#timeout()}; its errors are
 * counted and swallowed. It runs only when the move has copied the tenant (its step is {@link MoveStep#COPIED} or
 * later): before that the target holds part of the tenant. The target lags the source by the catch-up: a comparison
 * that finds a difference reads both shards again up to {@link DualReadSettings#rechecks()} times; a difference that
 * goes away is {@link Outcome#BEHIND}, one that stays is {@link Outcome#MISMATCH}.
 *
 * <p>Queries named with {@link #register} also serve the move's verification: while the tenant is frozen, after the
 * final catch-up, each runs on source and target, and any difference fails the verification (the move is aborted
 * and the tenant stays on its source), as does a registered query that fails (bad SQL, a missing table).
 *
 * <p>The SQL runs as the library's maintenance reads do (on PostgreSQL with row-level security it sees every tenant's
 * rows): it must select the tenant's rows itself, by its tenant column. Rows are compared as a multiset of their values
 * as text, so the order the databases return them in does not matter; at most {@value #MAX_ROWS} rows per query.
 *
 * <p>Thread-safe.
 */
public interface DualRead {

	/** Rows of one query compared at most; a query returning more is an {@link Outcome#ERROR}. */
	int MAX_ROWS = 10_000;

	/** What one comparison found. */
	enum Outcome {

		/** Source and target returned the same rows. */
		MATCH,

		/** They differed, and then no longer: the target was behind (the catch-up had not applied a change yet). */
		BEHIND,

		/** They differed on every read, the re-checks included. */
		MISMATCH,

		/** A read failed or timed out (a shard down, a bad query); the application is not affected. */
		ERROR,

		/**
		 * Not compared: dual read off, the tenant not moving or not copied yet, the call not sampled, or the
		 * comparison's queue full.
		 */
		SKIPPED

	}

	/**
	 * One comparison.
	 * @param name the query's name, never {@code null}
	 * @param tenantId the tenant, never {@code null}
	 * @param outcome what it found, never {@code null}
	 * @param sourceShardId the shard the tenant is moving from, or {@code null} if not compared
	 * @param targetShardId the shard it is moving to, or {@code null} if not compared
	 * @param detail why it was skipped, the error, or the first differing row; {@code null} on a match
	 */
	record Result(String name, String tenantId, Outcome outcome, String sourceShardId, String targetShardId,
			String detail) {
	}

	/**
	 * Names a read-only query of one tenant, for {@link #compare(String, String)} and for the move's verification.
	 * Registering a name again replaces its query.
	 * @param name the query's name, used as a metric tag: a few fixed names, never a tenant id; not blank
	 * @param sql a query whose only parameter ({@code ?}) is the tenant id, selecting that tenant's rows, e.g.
	 * {@code SELECT id, status, total FROM orders WHERE tenant_id = ?}
	 * @throws IllegalArgumentException if the name is blank
	 * @throws NullPointerException if an argument is {@code null}
	 */
	void register(String name, String sql);

	/** @return the settings this dual read runs with; never {@code null} */
	DualReadSettings settings();

	/** @return the registered queries by name, a snapshot; never {@code null} */
	Map<String, String> queries();

	/**
	 * Compares a registered query of a tenant on source and target, if the tenant is moving (see the class comment).
	 * @param tenantId the tenant
	 * @param name a registered query's name
	 * @return the comparison, completed on the dual read's threads; never completes exceptionally
	 * @throws IllegalArgumentException if no query has that name
	 * @throws NullPointerException if an argument is {@code null}
	 */
	CompletableFuture<Result> compare(String tenantId, String name);

	/**
	 * Compares a query of a tenant on source and target, if the tenant is moving (see the class comment).
	 * @param tenantId the tenant
	 * @param name the query's name, used as a metric tag (a few fixed names, never a tenant id)
	 * @param sql a read-only query selecting rows of that tenant
	 * @param parameters its parameters, in order, bound with {@code setObject}
	 * @return the comparison, completed on the dual read's threads; never completes exceptionally
	 * @throws NullPointerException if an argument is {@code null}
	 */
	CompletableFuture<Result> compare(String tenantId, String name, String sql, List<?> parameters);

	/**
	 * @param moveId a move's id
	 * @return the {@link Outcome#MISMATCH} comparisons this instance counted during that move, {@code >= 0}
	 */
	long mismatches(String moveId);

}
