package io.github.shardtenancy.retry;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The pending commit of a thread's outermost transaction: it counts only once more work begins after it. */
class CommittedWorkPendingTest {

	@Test
	@DisplayName("nothing is recorded while no watch is open")
	void nothingWithoutWatch() {
		CommittedWork.record("ignored");
		CommittedWork.recordPending("ignored too");
		try (CommittedWork.Watch watch = CommittedWork.watch()) {
			assertThat(watch.committed()).isEmpty();
		}
	}

	@Test
	@DisplayName("a pending commit with nothing after it is the attempt's own, and does not count")
	void pendingAloneDoesNotCount() {
		try (CommittedWork.Watch watch = CommittedWork.watch()) {
			CommittedWork.recordPending("own");
			assertThat(watch.committed()).isEmpty();
		}
	}

	@Test
	@DisplayName("a pending commit counts once work begins after it, or another commit is recorded")
	void pendingIsConfirmedByLaterWork() {
		try (CommittedWork.Watch watch = CommittedWork.watch()) {
			CommittedWork.recordPending("first");
			CommittedWork.workBegins();
			CommittedWork.recordPending("second");
			CommittedWork.record("statement");
			CommittedWork.recordPending("third");
			CommittedWork.recordPending("fourth");
			assertThat(watch.committed()).containsExactly("first", "second", "statement", "third");
		}
	}

	@Test
	@DisplayName("closing a watch restores the enclosing one")
	void nestedWatchesRestoreTheOuter() {
		try (CommittedWork.Watch outer = CommittedWork.watch()) {
			try (CommittedWork.Watch inner = CommittedWork.watch()) {
				CommittedWork.record("inner");
				assertThat(inner.committed()).containsExactly("inner");
			}
			CommittedWork.record("outer");
			assertThat(outer.committed()).containsExactly("outer");
		}
	}

}
