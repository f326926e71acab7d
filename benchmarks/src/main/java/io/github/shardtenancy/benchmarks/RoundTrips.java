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

	/** PostgreSQL: no extra round trip; the begin, the first write's check and the trigger WHEN clauses on the server. */
	static final String POSTGRES = "Counted per transaction: plain = 4 round trips (pgjdbc sends BEGIN with the first "
			+ "SELECT; INSERT; UPDATE; COMMIT); library = 4 as well: SELECT shard_fence_begin(?, ?) travels in the same "
			+ "flight as Hibernate's first SELECT (FenceDialect.beginStatement; it was a round trip of its own before). "
			+ "What remains is work, not waiting: on the server the begin (one PL/pgSQL call: fence row read and 5 "
			+ "set_config), the first written row's check (one PL/pgSQL call: fence row read FOR SHARE, a row lock "
			+ "that dirties the fence row's page, and a shard_capture lookup) and the triggers' WHEN clauses on every "
			+ "written row (the second row and the UPDATE statement call no PL/pgSQL); in the client the retry "
			+ "advice, the route and the connection provider's JDBC proxy.";

	private RoundTrips() {
	}

}
