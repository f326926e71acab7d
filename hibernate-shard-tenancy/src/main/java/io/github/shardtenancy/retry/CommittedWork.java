package io.github.shardtenancy.retry;

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
	 * Records a commit on this thread, if a watch is open. A {@linkplain #recordPending(String) pending} commit is
	 * confirmed first, since work went on after it.
	 * @param description what committed (a transaction name, a statement), for the error message; never {@code null}
	 */
	public static void record(String description) {
		Watch watch = WATCH.get();
		if (watch != null) {
			watch.confirmPending();
			watch.committed.add(description);
		}
	}

	/**
	 * Records, if a watch is open, the commit of a transaction that was the outermost one on this thread: it may be
	 * the attempt's own transaction, whose commit is the attempt's success, and a failure raised at or after that
	 * commit (an after-commit callback) must not count it as work done inside the attempt. It stays pending, and
	 * counts only once more work begins on the thread ({@link #workBegins()}, or another {@link #record(String)}).
	 * A later pending commit replaces an unconfirmed earlier one only after confirming it, so nothing is lost.
	 * @param description what committed, for the error message; never {@code null}
	 */
	public static void recordPending(String description) {
		Watch watch = WATCH.get();
		if (watch != null) {
			watch.confirmPending();
			watch.pending = description;
		}
	}

	/**
	 * Tells an open watch that new work begins on this thread (a transaction starts): a pending commit is confirmed,
	 * as the attempt went on after it. Does nothing if no watch is open.
	 */
	public static void workBegins() {
		Watch watch = WATCH.get();
		if (watch != null) {
			watch.confirmPending();
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

		private String pending;

		private Watch(Watch previous) {
			this.previous = previous;
		}

		private void confirmPending() {
			if (this.pending != null) {
				this.committed.add(this.pending);
				this.pending = null;
			}
		}

		/**
		 * @return what committed so far, in order, without a commit still {@linkplain #recordPending(String) pending};
		 * empty if nothing did
		 */
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
