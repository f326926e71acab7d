package io.github.shardtenancy.benchmarks;

import java.util.concurrent.atomic.LongAdder;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Round trips per transaction: counted by the PostgreSQL driver in a counting pass ({@link Counter}), and, for the
 * notes of a missed throughput goal, where the time of a routed transaction goes, from the code path.
 */
final class RoundTrips {

	/** H2: on an embedded H2 the fence runs no statement of its own in the common path. */
	static final String H2 = "Counted per transaction (from the code of H2FenceDialect, H2TenantLocks and "
			+ "H2FenceTrigger): plain = 3 statements + commit; on an embedded H2 the library adds no statement in "
			+ "the common path: begin takes the tenant's fence lock in the JVM and reads the fence row from H2's "
			+ "engine, the triggers compare the row's tenant in Java, end releases the lock (one lookup of the fence "
			+ "row's place per tenant and JVM). The rest is the library's Java path (tenant binding, router lookup, "
			+ "retry advice, connection guard, JDBC wrappers) and H2's trigger calls.";

	/** PostgreSQL: where the time goes beyond the round trips, which the counting pass measures. */
	static final String POSTGRES = "Round trips are the same on both sides (see the counting pass): the library's "
			+ "SELECT shard_fence_begin(?, ?) travels in the same flight as Hibernate's first SELECT "
			+ "(FenceDialect.beginStatement). What remains is work, not waiting: on the server the fence's begin (a shared "
			+ "advisory lock, the fence row, the variables) and the row trigger on every written row; in the client the retry advice, "
			+ "the route and the connection provider's JDBC wrapper.";

	private RoundTrips() {
	}

	/**
	 * Counts the round trips of pgjdbc connections in threads whose name starts with a prefix, from the driver's
	 * own log: the driver ends every flight of messages it sends with one Sync message and then waits for the
	 * server's answer ({@code FE=> Sync} at {@link Level#FINEST}, logger {@code org.postgresql}; see
	 * https://www.postgresql.org/docs/current/protocol-flow.html#PROTOCOL-FLOW-EXT-QUERY). Switches that logging on
	 * while open, which slows the driver: use it only in a counting pass, never in timed rounds. Thread-safe.
	 */
	static final class Counter implements AutoCloseable {

		/** Held, so that the configured logger is not collected while counting. */
		private final Logger driver = Logger.getLogger("org.postgresql");

		private final Level previous;

		private final boolean parentHandlers;

		private final LongAdder syncs = new LongAdder();

		private final Handler handler;

		/**
		 * @param threadPrefix only messages sent by threads whose name starts with this count
		 */
		Counter(String threadPrefix) {
			this.handler = new Handler() {

				@Override
				public void publish(LogRecord record) {
					// The driver logs in the thread that sends, so the current thread is the sender.
					if (" FE=> Sync".equals(record.getMessage())
							&& Thread.currentThread().getName().startsWith(threadPrefix)) {
						Counter.this.syncs.increment();
					}
				}

				@Override
				public void flush() {
				}

				@Override
				public void close() {
				}

			};
			this.handler.setLevel(Level.FINEST);
			this.previous = this.driver.getLevel();
			this.parentHandlers = this.driver.getUseParentHandlers();
			this.driver.addHandler(this.handler);
			this.driver.setUseParentHandlers(false); // the root logger's handlers would print every message
			this.driver.setLevel(Level.FINEST);
		}

		/** @return round trips counted so far */
		long roundTrips() {
			return this.syncs.sum();
		}

		@Override
		public void close() {
			this.driver.setLevel(this.previous);
			this.driver.setUseParentHandlers(this.parentHandlers);
			this.driver.removeHandler(this.handler);
		}

	}

}
