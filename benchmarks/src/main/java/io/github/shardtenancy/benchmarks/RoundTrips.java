package io.github.shardtenancy.benchmarks;

/**
 * Where the time of a routed transaction goes, counted from the code path (round trips to the shard per
 * transaction), for the notes of a missed throughput goal.
 */
final class RoundTrips {

	/** H2: one statement binds at begin, one clears at end, one locks the fence row and one asks about capture. */
	static final String H2 = "Counted per transaction (from the code of H2FenceDialect, H2FenceTrigger and "
			+ "H2CaptureTrigger): plain = 3 statements + commit; the library adds 4 statements: at begin one SELECT "
			+ "that reads the fence row and binds the three variables, at end one SELECT SET(...) that clears them, "
			+ "and, at the transaction's first write only, one statement inside the fence trigger that locks the fence "
			+ "row and one inside the capture trigger that asks whether the tenant is being moved; later writes of the "
			+ "transaction are checked in Java while H2 shows the lock still held (before: these two ran for every "
			+ "written row, and the UPDATE's statement trigger ran one more: 7 statements). The rest is the library's "
			+ "Java path (tenant binding, router lookup, retry advice, connection guard) and H2's 5 trigger calls.";

	/** PostgreSQL: one extra round trip per transaction plus a PL/pgSQL row trigger per written row. */
	static final String POSTGRES = "Counted per transaction: plain = 4 round trips (BEGIN piggy-backed on the first "
			+ "SELECT by pgjdbc, INSERT, UPDATE, COMMIT); library = 5: SELECT shard_fence_begin(?, ?) is a round trip "
			+ "of its own before Hibernate's first statement (fence row read + 4 set_config in one PL/pgSQL call). "
			+ "Server side, the first written row runs the fence trigger (fence row read FOR SHARE, remembered in "
			+ "shard_tenancy.fenced), the second only the trigger's fast path (one current_setting compare). The extra "
			+ "round trip stays: variables that outlive the transaction would leak to the next borrower and through "
			+ "transaction-pooling proxies, and pgjdbc cannot send the call together with Hibernate's first "
			+ "statement without changing what that statement returns.";

	private RoundTrips() {
	}

}
