package io.github.shardtenancy.internal.routing;

import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.ShardTenancyException;

/**
 * Applies the entries of a snapshot on a thread of its own, in batches, while the thread that reads the snapshot goes
 * on reading: a cold start then takes about as long as the slower of reading and caching rather than their sum. The
 * reader {@link #accept(DirectoryEntry) hands} entries over and then calls {@link #finish()}, which returns once every
 * entry handed over has been applied, or {@link #close()} to give up. At most {@value #QUEUED_BATCHES} batches of
 * {@value #BATCH} entries wait at once, so a slow applier slows the reader down.
 *
 * <p>Used by one reading thread; the applying thread is its own.
 */
final class SnapshotApplier implements Consumer<DirectoryEntry>, AutoCloseable {

	static final int BATCH = 4_096;

	static final int QUEUED_BATCHES = 4;

	private static final DirectoryEntry[] END = new DirectoryEntry[0];

	private final BlockingQueue<DirectoryEntry[]> batches = new ArrayBlockingQueue<>(QUEUED_BATCHES);

	private final Consumer<DirectoryEntry> target;

	private final Thread applier;

	private volatile Throwable failure;

	private DirectoryEntry[] batch = new DirectoryEntry[BATCH];

	private int size;

	/**
	 * Starts the applying thread.
	 * @param target applies one entry; called on the applying thread only, in the order entries were handed over
	 */
	SnapshotApplier(Consumer<DirectoryEntry> target) {
		this.target = Objects.requireNonNull(target, "target");
		this.applier = new Thread(this::applyAll, "shard-tenancy-snapshot-apply");
		this.applier.setDaemon(true);
		this.applier.start();
	}

	/**
	 * Hands one entry over (applied later, on the applying thread).
	 * @throws RuntimeException what the target threw for an entry handed over earlier, if it threw
	 * @throws ShardTenancyException if interrupted while waiting for the applier (the interrupt flag is set again)
	 */
	@Override
	public void accept(DirectoryEntry entry) {
		this.batch[this.size++] = entry;
		if (this.size == BATCH) {
			handOver(this.batch);
			this.batch = new DirectoryEntry[BATCH];
			this.size = 0;
		}
	}

	/**
	 * Hands the last entries over and waits until every entry handed over has been applied.
	 * @throws RuntimeException what the target threw for an entry, if it threw (the entries after it are not applied)
	 * @throws ShardTenancyException if interrupted while waiting (the interrupt flag is set again)
	 */
	void finish() {
		if (this.size > 0) {
			handOver(Arrays.copyOf(this.batch, this.size));
			this.size = 0;
		}
		handOver(END);
		try {
			this.applier.join();
		}
		catch (InterruptedException ex) {
			throw interrupted(ex);
		}
		rethrowFailure();
	}

	/** Stops the applying thread without applying what is still queued, and waits for it; idempotent. */
	@Override
	public void close() {
		this.applier.interrupt();
		boolean interrupted = false;
		while (this.applier.isAlive()) {
			try {
				this.applier.join();
			}
			catch (InterruptedException ex) {
				interrupted = true;
			}
		}
		if (interrupted) {
			Thread.currentThread().interrupt();
		}
	}

	private void handOver(DirectoryEntry[] entries) {
		try {
			while (!this.batches.offer(entries, 50, TimeUnit.MILLISECONDS)) {
				rethrowFailure(); // the applier stopped: nothing will take the batch
			}
		}
		catch (InterruptedException ex) {
			throw interrupted(ex);
		}
		rethrowFailure();
	}

	private void applyAll() {
		try {
			while (true) {
				DirectoryEntry[] entries = this.batches.take();
				if (entries == END) {
					return;
				}
				for (DirectoryEntry entry : entries) {
					this.target.accept(entry);
				}
			}
		}
		catch (InterruptedException ex) {
			this.failure = ex; // close(): the reader gave up
		}
		catch (RuntimeException | Error ex) {
			this.failure = ex;
		}
	}

	private void rethrowFailure() {
		Throwable failed = this.failure;
		if (failed instanceof RuntimeException ex) {
			throw ex;
		}
		if (failed instanceof Error ex) {
			throw ex;
		}
		if (failed != null) {
			throw new ShardTenancyException("The snapshot's applier was stopped", null, null, -1, failed);
		}
	}

	private static ShardTenancyException interrupted(InterruptedException ex) {
		Thread.currentThread().interrupt();
		return new ShardTenancyException("Interrupted while loading a directory snapshot", null, null, -1, ex);
	}

}
