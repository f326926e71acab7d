package io.github.shardtenancy.benchmarks;

/**
 * Where the time of a routed transaction goes, counted from the code path (round trips to the shard per
 * transaction), for the notes of a missed throughput goal.
 */
final class RoundTrips {

	/** H2: the fence is two extra calls of Java code inside the database per transaction, plus row triggers. */
	static final String H2 = "Counted per transaction (from the code of H2Fence and H2FenceTrigger): plain = 3 "
			+ "statements + commit; the library adds CALL SHARD_FENCE_BEGIN (inside: read the fence row, one "
			+ "SELECT SET(...) binding the variables), CALL SHARD_FENCE_END (one SELECT SET(...)) and, per written row "
			+ "(2 per transaction), a Java trigger that reads the session variables and locks the fence row "
			+ "(SELECT ... FOR UPDATE): about 9 extra statements next to 3 (15 before the shard identity was read only "
			+ "for rejections and the SETs were merged), each cheap, but H2 in memory does little else. Next: skip "
			+ "SHARD_FENCE_END when the pool resets the session, and remember in the trigger that this transaction "
			+ "already holds the fence row.";

	/** PostgreSQL: one extra round trip per transaction plus a PL/pgSQL row trigger per written row. */
	static final String POSTGRES = "Counted per transaction: plain = 3 statements + COMMIT (BEGIN is piggy-backed by "
			+ "pgjdbc); library = the same + SELECT shard_fence_begin(?, ?) as a separate round trip (1 extra, ~25% "
			+ "more round trips) + a PL/pgSQL fence trigger on each of the 2 written rows (reads and locks the "
			+ "tenant's fence row). Binding the variables with the first statement would remove the extra round "
			+ "trip (core change, not done here).";

	private RoundTrips() {
	}

}
