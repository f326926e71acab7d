package io.github.shardtenancy.testing;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

import io.github.shardtenancy.MoveResult;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.MoveStatus;
import io.github.shardtenancy.MoveStep;
import io.github.shardtenancy.TenantMover;
import io.github.shardtenancy.spi.MoveHook;

import static org.awaitility.Awaitility.await;

/**
 * A move run on another thread and held after a recorded step until the test releases it, and optionally held again
 * after a later step: lets a test look at (or change) the shards while the tenant is in a known state of a real move.
 * The status recorded at {@link MoveStep#VERIFIED} is kept ({@link #verified()}).
 */
public final class HeldMove {

	private final CountDownLatch held = new CountDownLatch(1);

	private final CountDownLatch release = new CountDownLatch(1);

	private final CountDownLatch heldAgain = new CountDownLatch(1);

	private final CountDownLatch releaseAgain = new CountDownLatch(1);

	private final AtomicReference<MoveStatus> verified = new AtomicReference<>();

	private final Future<MoveResult> result;

	/**
	 * Starts the move and waits (up to a minute) until it is held after {@code holdAfter}.
	 * @param withHook the mover to run the move with, given the hook to install
	 * @param threads runs the move
	 * @param tenantId the tenant to move
	 * @param targetShardId where to
	 * @param settings the move's settings
	 * @param holdAfter the step after which the move waits for {@link #release()}
	 * @param holdAgainAfter a later step after which it waits for {@link #releaseAgain()}, or {@code null}
	 */
	public HeldMove(Function<MoveHook, TenantMover> withHook, ExecutorService threads, String tenantId,
			String targetShardId, MoveSettings settings, MoveStep holdAfter, MoveStep holdAgainAfter) {
		AtomicReference<TenantMover> mover = new AtomicReference<>();
		mover.set(withHook.apply((moveId, step) -> {
			if (step == MoveStep.VERIFIED) {
				this.verified.set(mover.get().status(moveId));
			}
			if (step == holdAfter) {
				hold(this.held, this.release);
			}
			if (step == holdAgainAfter) {
				hold(this.heldAgain, this.releaseAgain);
			}
		}));
		this.result = threads.submit(() -> mover.get().moveAndWait(tenantId, targetShardId, settings));
		await("the move is held after " + holdAfter).atMost(Duration.ofSeconds(60))
			.until(() -> this.held.getCount() == 0 || this.result.isDone());
	}

	private static void hold(CountDownLatch held, CountDownLatch release) {
		held.countDown();
		try {
			release.await(120, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/** Lets the move go on after the first hold. */
	public void release() {
		this.release.countDown();
	}

	/** @return whether the move is held after the second step (or went past it) */
	public boolean isHeldAgain() {
		return this.heldAgain.getCount() == 0;
	}

	/** Lets the move go on after the second hold. */
	public void releaseAgain() {
		this.releaseAgain.countDown();
	}

	/** @return the move's status as recorded at {@link MoveStep#VERIFIED}, or {@code null} before */
	public MoveStatus verified() {
		return this.verified.get();
	}

	/** @return the move's outcome: its result, or the exception it ended with */
	public Future<MoveResult> result() {
		return this.result;
	}

}
