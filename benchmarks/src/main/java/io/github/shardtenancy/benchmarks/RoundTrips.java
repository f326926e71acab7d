package io.github.shardtenancy.benchmarks;

/**
 * Where the time of a routed transaction goes, counted from the code path (round trips to the shard per
 * transaction), for the notes of a missed throughput goal.
 */
final class RoundTrips {

	/** H2: the fence is two extra calls of Java code inside the database per transaction, plus row triggers. */
	static final String H2 = "Counted per transaction: plain = 3 statements (select order, insert line, update order) "
			+ "+ commit; library = the same + CALL SHARD_FENCE_BEGIN(?, ?) before and CALL SHARD_FENCE_END() after "
			+ "(2 extra calls), + the fence trigger on each written row (2 rows: a Java trigger reading the session "
			+ "variables and the fence row) + route() and Hibernate's multi-tenant connection provider path.";

	/** PostgreSQL: one extra round trip per transaction plus a PL/pgSQL row trigger per written row. */
	static final String POSTGRES = "Counted per transaction: plain = 3 statements + COMMIT (BEGIN is piggy-backed by "
			+ "pgjdbc); library = the same + SELECT shard_fence_begin(?, ?) as a separate round trip (1 extra, ~25% "
			+ "more round trips) + a PL/pgSQL fence trigger on each of the 2 written rows (reads and locks the "
			+ "tenant's fence row). Binding the variables with the first statement would remove the extra round "
			+ "trip (core change, not done here).";

	private RoundTrips() {
	}

}
