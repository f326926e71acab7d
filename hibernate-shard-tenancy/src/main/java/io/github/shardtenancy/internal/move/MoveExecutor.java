package io.github.shardtenancy.internal.move;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The mover's executor: at most {@value #THREADS} daemon threads (started on demand, ended after a minute idle) and a
 * queue of at most {@value #QUEUE} tasks; beyond that a move is refused ({@code TenantMover.move} then throws and
 * records the move as aborted). Moves, halves of verifications and delayed cleans run on it. The default executor of
 * a {@code ShardTenancy}, which owns it and closes it: running moves are interrupted (a move interrupted anywhere is resumed or aborted later, from its last
 * recorded step) and delayed cleans not yet run leave their moves FLIPPED. Thread-safe.
 */
public final class MoveExecutor implements AutoCloseable {

	/** Threads at most. */
	public static final int THREADS = 4;

	/** Queued tasks at most. */
	public static final int QUEUE = 64;

	private final ThreadPoolExecutor executor;

	/** Creates the executor; its threads start on demand. */
	public MoveExecutor() {
		AtomicInteger threads = new AtomicInteger();
		this.executor = new ThreadPoolExecutor(THREADS, THREADS, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(QUEUE),
				task -> {
					Thread thread = new Thread(task, "shard-tenancy-move-" + threads.incrementAndGet());
					thread.setDaemon(true);
					return thread;
				});
		this.executor.allowCoreThreadTimeOut(true);
	}

	/** @return the executor the mover runs on */
	public ExecutorService executor() {
		return this.executor;
	}

	/** Interrupts running tasks and drops queued ones. */
	@Override
	public void close() {
		this.executor.shutdownNow();
	}

}
