package io.github.shardtenancy.testing;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * Waits for a condition with a generous bound: for asynchronous effects (a background sync, an expiry, a thread
 * reaching a lock), never to assert how long something took.
 */
public final class Poll {

	/** The bound: far above anything these tests wait for on a loaded machine. */
	public static final Duration BOUND = Duration.ofSeconds(30);

	private Poll() {
	}

	/**
	 * @param what the condition, for the failure message
	 * @param condition polled every 10 ms
	 * @throws AssertionError if it is still false after {@link #BOUND}
	 */
	public static void until(String what, BooleanSupplier condition) {
		long deadline = System.nanoTime() + BOUND.toNanos();
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() > deadline) {
				throw new AssertionError("Still waiting after " + BOUND.toSeconds() + " s for: " + what);
			}
			try {
				Thread.sleep(10);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new AssertionError("Interrupted while waiting for: " + what, ex);
			}
		}
	}

}
