package io.github.shardtenancy.sample.live;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/** Daemon threads with a numbered name, for the live page's moves and writers. */
final class Threads {

	private Threads() {
	}

	static ThreadFactory named(String prefix) {
		AtomicInteger counter = new AtomicInteger();
		return (work) -> {
			Thread thread = new Thread(work, prefix + counter.incrementAndGet());
			thread.setDaemon(true);
			return thread;
		};
	}

}
