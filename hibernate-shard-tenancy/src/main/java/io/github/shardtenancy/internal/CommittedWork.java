package io.github.shardtenancy.internal;

import java.util.ArrayList;
import java.util.List;

/**
 * Per thread, the work that committed while a retry attempt watches: a retry must not silently run a unit of work
 * again once part of it (an independent transaction, an auto-commit statement) has committed, or that part would be
 * repeated. The retry layer opens a {@link Watch} around each attempt; the library's connection layer and transaction
 * listeners {@link #record(String) record} each commit. Nothing is recorded while no watch is open on the thread.
 *
 * <p>Confined to the calling thread.
 */
public final class CommittedWork {

	private static final ThreadLocal<Watch> WATCH = new ThreadLocal<>();

	private CommittedWork() {
	}

	/**
	 * Records a commit on this thread, if a watch is open.
	 * @param description what committed (a transaction name, a statement), for the error message; never {@code null}
	 */
	public static void record(String description) {
		Watch watch = WATCH.get();
		if (watch != null) {
			watch.committed.add(description);
		}
	}

	/**
	 * Opens a watch on this thread; the previous one (if any) is restored when it is closed.
	 * @return the watch; close it when the attempt ends
	 */
	public static Watch watch() {
		Watch watch = new Watch(WATCH.get());
		WATCH.set(watch);
		return watch;
	}

	/** The commits recorded on one thread between {@link #watch()} and {@link #close()}. */
	public static final class Watch implements AutoCloseable {

		private final Watch previous;

		private final List<String> committed = new ArrayList<>(2);

		private Watch(Watch previous) {
			this.previous = previous;
		}

		/** @return what committed so far, in order; empty if nothing did */
		public List<String> committed() {
			return List.copyOf(this.committed);
		}

		@Override
		public void close() {
			if (this.previous != null) {
				WATCH.set(this.previous);
			}
			else {
				WATCH.remove();
			}
		}

	}

}
