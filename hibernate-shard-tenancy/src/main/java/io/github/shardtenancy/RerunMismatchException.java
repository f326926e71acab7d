package io.github.shardtenancy;

import org.jspecify.annotations.Nullable;

/**
 * A re-run of a unit of work would have committed less than the attempt it replaces: an {@code UPDATE} matched no row
 * of a table into which a failed attempt of the same unit of work had issued an {@code INSERT}. That is what a body
 * does when it saves an object whose id the failed attempt set before its INSERT (the usual plain JDBC shape
 * "{@code if (o.isNew()) insert, set the id; else update}"): the INSERT was rolled back, the id stayed on the object,
 * and the re-run took the object for an existing row. The re-run's transaction is rolled back (a statement it ran in
 * auto-commit mode, outside any transaction, stays committed), and the caller gets this exception instead of a
 * success that wrote nothing.
 *
 * <p>Remedy: undo in the body what a failed attempt changes on objects that outlive it, with
 * {@link io.github.shardtenancy.retry.RetryAttempts#onRollback(Runnable)}, or take ids with
 * {@link ShardTenancy#assignId} / {@link ShardTenancy#assignIntId}, which undo themselves; or build the objects inside
 * the body. The check is {@code shard-tenancy.retry.rerun-check}
 * ({@link io.github.shardtenancy.retry.RetrySettings#rerunCheck()}). Immutable.
 */
public class RerunMismatchException extends ShardTenancyException {

	private final String table;

	/**
	 * @param tenantId the tenant bound, or {@code null}
	 * @param table the table the UPDATE and the failed attempt's INSERT named, lower case; never {@code null}
	 * @param attempt which attempt ran the UPDATE (the first is 1)
	 * @param sql the UPDATE; never {@code null}
	 */
	public RerunMismatchException(@Nullable String tenantId, String table, int attempt, String sql) {
		super("Attempt " + attempt + " of a unit of work for tenant " + quote(tenantId) + " updated no row of table '"
				+ table + "', into which a failed attempt had inserted (" + quotedSql(sql) + "): the body most likely "
				+ "re-used an object whose id the failed attempt set before its INSERT, so this attempt would commit "
				+ "without writing the row. The attempt failed instead, and its transaction is rolled back (a statement it "
				+ "ran in auto-commit mode stays committed). Undo such changes with RetryAttempts.onRollback(...) "
				+ "or take ids with ShardTenancy.assignId/assignIntId (see docs/retry.md, \"What re-runs\"); "
				+ "shard-tenancy.retry.rerun-check=warn only logs this", tenantId, null, -1, null);
		this.table = table;
	}

	/** @return the table, lower case, without schema; never {@code null} */
	public String table() {
		return this.table;
	}

	private static String quotedSql(String sql) {
		String s = sql.strip();
		return s.length() <= 120 ? s : s.substring(0, 120) + "...";
	}

}
