package io.github.shardtenancy.it.boot.orders;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;

import org.springframework.core.retry.RetryListener;
import org.springframework.core.retry.RetryPolicy;
import org.springframework.core.retry.RetryState;
import org.springframework.core.retry.Retryable;
import org.springframework.stereotype.Component;

/**
 * Observes the automatic retry as an application would (the auto-configuration composes every {@link RetryListener}
 * bean): counts retries, keeps each failed attempt's exception, and runs a test's hook before each retry. A call
 * made {@code 1 + retries} attempts.
 */
@Component
public class AttemptRecorder implements RetryListener {

	private final AtomicInteger retries = new AtomicInteger();

	private final List<Throwable> failures = new ArrayList<>();

	private volatile IntConsumer beforeRetry = (n) -> {
	};

	@Override
	public void onRetryableExecution(RetryPolicy retryPolicy, Retryable<?> retryable, RetryState retryState) {
		if (!retryState.isSuccessful()) {
			synchronized (this.failures) {
				this.failures.add(retryState.getLastException());
			}
		}
	}

	@Override
	public void beforeRetry(RetryPolicy retryPolicy, Retryable<?> retryable, RetryState retryState) {
		this.beforeRetry.accept(this.retries.incrementAndGet());
	}

	/** @return retries (attempts after a first one) since the last reset */
	public int retries() {
		return this.retries.get();
	}

	/** @return the failure of each failed attempt, in order */
	public List<Throwable> failures() {
		synchronized (this.failures) {
			return List.copyOf(this.failures);
		}
	}

	/** @param hook run before each retry, with the retry's number since the last reset (1 for the second attempt) */
	public void beforeRetry(IntConsumer hook) {
		this.beforeRetry = hook;
	}

	/** Forgets the counts and the hook. */
	public void reset() {
		this.retries.set(0);
		synchronized (this.failures) {
			this.failures.clear();
		}
		this.beforeRetry = (n) -> {
		};
	}

}
