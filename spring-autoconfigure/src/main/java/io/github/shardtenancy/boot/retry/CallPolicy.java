package io.github.shardtenancy.boot.retry;

import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;

import io.github.shardtenancy.RetriesExhaustedException;
import io.github.shardtenancy.ShardConnectionLostException;
import io.github.shardtenancy.ShardTenancyException;
import io.github.shardtenancy.ShardUnavailableException;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.UnsafeToRerunException;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.fence.FenceRejection;
import io.github.shardtenancy.internal.routing.Router;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.retry.RetryException;
import org.springframework.core.retry.RetryPolicy;
import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.ExponentialBackOff;

/**
 * The retry policy of one {@link ShardTenancyRetry} call: counts the attempts, classifies each failure, invalidates
 * the rejected tenant's router entry, and remembers why the call stopped. Confined to the calling thread.
 */
final class CallPolicy implements RetryPolicy {

	private static final Logger log = LoggerFactory.getLogger(CallPolicy.class);

	private enum Outcome {
		RETRYING, EXHAUSTED, NOT_RETRYABLE, UNSAFE_TO_RERUN
	}

	private final Router router;

	private final RetrySettings settings;

	private final long startNanos = System.nanoTime();

	private int attempts;

	/** Attempts rejected because the tenant was being frozen or flipped; they do not use up the attempt budget. */
	private int moveWaits;

	private Throwable last;

	private FenceRejection lastRejection;

	private Outcome outcome = Outcome.RETRYING;

	private final BooleanSupplier safeToRerun;

	/** What committed inside the last failed attempt, independently of its own transaction. */
	private List<String> committed = List.of();

	CallPolicy(Router router, RetrySettings settings) {
		this(router, settings, () -> false);
	}

	CallPolicy(Router router, RetrySettings settings, BooleanSupplier safeToRerun) {
		this.router = router;
		this.settings = settings;
		this.safeToRerun = safeToRerun;
	}

	/**
	 * Tells the policy what committed inside the attempt that just failed; called before {@link #shouldRetry}.
	 * @param committed the committed work, in order; empty if none
	 */
	void attemptCommitted(List<String> committed) {
		this.committed = committed;
	}

	@Override
	public boolean shouldRetry(Throwable failure) {
		this.attempts++;
		this.last = failure;
		Optional<FenceRejection> found = FenceRejection.find(failure);
		if (found.isPresent()) {
			FenceRejection rejection = found.get();
			this.lastRejection = rejection;
			this.router.observer().fenceRejected(rejection.shardId(), rejection.reason());
			this.router.invalidate(rejection.tenantId());
			boolean retry;
			if (rejection.isMoveInProgress()) {
				// Waiting out a freeze is bounded by freeze-wait, not by the attempt budget, so that the one stale hop
				// that follows every flip still finds attempts left. Past freeze-wait every attempt counts.
				this.moveWaits++;
				retry = !freezeWaitElapsed() || this.attempts < this.settings.maxAttempts();
			}
			else {
				retry = this.attempts - this.moveWaits < this.settings.maxAttempts();
			}
			log.debug("Attempt {} of tenant '{}' rejected on shard '{}' ({}, directory version seen {}, required {}); {}",
					this.attempts, rejection.tenantId(), rejection.shardId(), rejection.reason(),
					rejection.seenVersion(), rejection.requiredVersion(), retry ? "retrying" : "giving up");
			return decide(retry);
		}
		Optional<ShardUnavailableException> unreachable = find(failure, ShardUnavailableException.class);
		if (unreachable.isPresent()) {
			// Nothing ran (no connection was borrowed) and the route is right: back off, never invalidate, so that a
			// shard that is down does not turn every caller into a directory reader.
			this.lastRejection = null;
			log.debug("Attempt {} found shard '{}' unavailable; {}", this.attempts, unreachable.get().shardId(),
					this.attempts < this.settings.maxAttempts() ? "retrying" : "giving up");
			return decide(this.attempts < this.settings.maxAttempts());
		}
		if (FenceRejection.findSerializationFailure(failure).isPresent() && this.settings.serializationFailures()) {
			this.lastRejection = null;
			log.debug("Attempt {} failed with a serialization failure; {}", this.attempts,
					this.attempts < this.settings.maxAttempts() ? "retrying" : "giving up");
			return decide(this.attempts < this.settings.maxAttempts());
		}
		this.outcome = Outcome.NOT_RETRYABLE;
		return false;
	}

	private boolean decide(boolean retry) {
		if (!this.committed.isEmpty() && !this.safeToRerun.getAsBoolean()) {
			// Running the attempt again would repeat what it already committed; the caller has to decide.
			log.debug("Attempt {} failed retryably after independent work committed inside it ({}); not running it "
					+ "again", this.attempts, this.committed);
			this.outcome = Outcome.UNSAFE_TO_RERUN;
			return false;
		}
		this.outcome = retry ? Outcome.RETRYING : Outcome.EXHAUSTED;
		if (retry) {
			this.router.observer().retried();
		}
		else {
			this.router.observer().retriesExhausted();
		}
		return retry;
	}

	private boolean freezeWaitElapsed() {
		return System.nanoTime() - this.startNanos >= this.settings.freezeWait().toNanos();
	}

	@Override
	public BackOff getBackOff() {
		ExponentialBackOff backOff = new ExponentialBackOff(this.settings.initialDelay().toMillis(),
				this.settings.multiplier());
		backOff.setMaxInterval(this.settings.maxDelay().toMillis());
		backOff.setJitter(this.settings.jitter().toMillis());
		return backOff;
	}

	/**
	 * @param ex what the retry template threw when it stopped
	 * @return what the caller of the retry sees
	 */
	Throwable failure(RetryException ex) {
		Throwable lastFailure = this.last != null ? this.last : ex.getLastException();
		if (lastFailure == null) {
			lastFailure = ex;
		}
		if (this.outcome == Outcome.UNSAFE_TO_RERUN) {
			return unsafeToRerun(lastFailure);
		}
		if (this.outcome == Outcome.EXHAUSTED) {
			RetriesExhaustedException exhausted;
			if (this.lastRejection != null) {
				exhausted = new RetriesExhaustedException(this.lastRejection.tenantId(), this.lastRejection.shardId(),
						this.lastRejection.seenVersion(), this.attempts, this.lastRejection.sqlException());
			}
			else if (find(lastFailure, ShardUnavailableException.class).isPresent()) {
				ShardUnavailableException unreachable = find(lastFailure, ShardUnavailableException.class).get();
				exhausted = new RetriesExhaustedException(unreachable.tenantId(), unreachable.shardId(),
						unreachable.directoryVersion(), this.attempts, unreachable);
			}
			else {
				exhausted = new RetriesExhaustedException(TenantContext.current(), null, -1, this.attempts,
						FenceRejection.findSerializationFailure(lastFailure).orElse(null));
			}
			// The cause is the database's own rejection, whose message names tenant, shard and versions; the
			// exception it surfaced in (Spring or Hibernate wrappers) is kept as a suppressed exception.
			if (exhausted.getCause() != lastFailure) {
				exhausted.addSuppressed(lastFailure);
			}
			return exhausted;
		}
		ShardTenancyException typed = typedError(lastFailure);
		if (typed != null) {
			return typed;
		}
		if (ShardConnectionLostException.isConnectionFailure(lastFailure)) {
			String tenant = TenantContext.current();
			DirectoryEntry route = tenant != null ? this.router.cached(tenant).orElse(null) : null;
			return new ShardConnectionLostException(tenant, route != null ? route.shardId() : null,
					route != null ? route.version() : -1, lastFailure);
		}
		return lastFailure;
	}

	private UnsafeToRerunException unsafeToRerun(Throwable lastFailure) {
		UnsafeToRerunException unsafe;
		Optional<ShardUnavailableException> unreachable = find(lastFailure, ShardUnavailableException.class);
		if (this.lastRejection != null) {
			unsafe = new UnsafeToRerunException(this.lastRejection.tenantId(), this.lastRejection.shardId(),
					this.lastRejection.seenVersion(), this.attempts, this.committed, this.lastRejection.sqlException());
		}
		else if (unreachable.isPresent()) {
			unsafe = new UnsafeToRerunException(unreachable.get().tenantId(), unreachable.get().shardId(),
					unreachable.get().directoryVersion(), this.attempts, this.committed, unreachable.get());
		}
		else {
			String tenant = TenantContext.current();
			DirectoryEntry route = tenant != null ? this.router.cached(tenant).orElse(null) : null;
			unsafe = new UnsafeToRerunException(tenant, route != null ? route.shardId() : null,
					route != null ? route.version() : -1, this.attempts, this.committed,
					FenceRejection.findSerializationFailure(lastFailure).map(Throwable.class::cast).orElse(lastFailure));
		}
		if (unsafe.getCause() != lastFailure) {
			unsafe.addSuppressed(lastFailure);
		}
		return unsafe;
	}

	private static <E extends Throwable> Optional<E> find(Throwable failure, Class<E> type) {
		for (Throwable t = failure; t != null; t = (t.getCause() == t ? null : t.getCause())) {
			if (type.isInstance(t)) {
				return Optional.of(type.cast(t));
			}
		}
		return Optional.empty();
	}

	private static ShardTenancyException typedError(Throwable failure) {
		for (Throwable t = failure; t != null; t = (t.getCause() == t ? null : t.getCause())) {
			if (t instanceof ShardTenancyException typed) {
				return typed;
			}
		}
		return null;
	}

}
