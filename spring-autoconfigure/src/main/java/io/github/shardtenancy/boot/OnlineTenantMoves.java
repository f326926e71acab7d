package io.github.shardtenancy.boot;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.github.shardtenancy.lifecycle.TenantMoves;
import io.github.shardtenancy.move.MoveOptions;
import io.github.shardtenancy.move.MoveStatus;
import io.github.shardtenancy.move.MoveStep;
import io.github.shardtenancy.move.OnlineMover;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lifecycle's moves (slot moves, overrides, drains, {@code TenantLifecycle.move}) through the {@link OnlineMover}:
 * each move runs to its flip on the calling thread (mark, copy, catch up, freeze, verify, flip), so the directory names
 * the target when {@link #move} returns. The source rows are cleaned at once when
 * {@code shard-tenancy.move.online-clean-delay} is zero (the default); otherwise the clean is scheduled on a daemon
 * thread of this object once the delay has passed ({@link OnlineMover#clean(String)}). A clean still pending when the
 * application stops (or one that fails) leaves the move FLIPPED in the move log, for {@link OnlineMover#resume} or
 * {@link OnlineMover#clean} later. Thread-safe; closed by the container.
 */
class OnlineTenantMoves implements TenantMoves, AutoCloseable {

	private static final Logger log = LoggerFactory.getLogger(OnlineTenantMoves.class);

	private final OnlineMover mover;

	private final MoveOptions options;

	private final ScheduledExecutorService cleaner = Executors.newSingleThreadScheduledExecutor(r -> {
		Thread t = new Thread(r, "shard-tenancy-move-clean");
		t.setDaemon(true);
		return t;
	});

	/**
	 * @param mover the online mover
	 * @param options the options every move runs with (the {@code MoveOptions} bean)
	 */
	OnlineTenantMoves(OnlineMover mover, MoveOptions options) {
		this.mover = mover;
		this.options = options;
	}

	/**
	 * Moves the tenant online and returns after the flip (and the clean, without a clean delay).
	 * @throws io.github.shardtenancy.ShardTenancyException whatever {@link OnlineMover#move} throws: the tenant is
	 * unknown or not ACTIVE, has an unfinished move, a shard is unknown or without change capture, or a step failed
	 */
	@Override
	public void move(String tenantId, String targetShardId) {
		String moveId = this.mover.move(tenantId, targetShardId, this.options);
		MoveStatus status = this.mover.status(moveId);
		if (status.step() == MoveStep.FLIPPED) {
			this.cleaner.schedule(() -> clean(moveId), this.options.cleanDelay().toMillis(), TimeUnit.MILLISECONDS);
		}
	}

	/** @return the options the moves run with */
	MoveOptions options() {
		return this.options;
	}

	private void clean(String moveId) {
		try {
			this.mover.clean(moveId);
		}
		catch (RuntimeException ex) {
			log.warn("Delayed clean of move {} failed; it stays FLIPPED for OnlineMover.resume or clean: {}", moveId,
					ex.getMessage());
		}
	}

	@Override
	public void close() {
		this.cleaner.shutdownNow();
	}

}
