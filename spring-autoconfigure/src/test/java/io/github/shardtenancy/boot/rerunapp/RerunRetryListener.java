package io.github.shardtenancy.boot.rerunapp;

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
 * Observes the automatic retry as an application would: records each failure seen by the retry, counts the retries,
 * and runs a test's hook before each retry (for example to lift a fence that rejected the first attempt).
 */
@Component
public class RerunRetryListener implements RetryListener {

	private final List<Throwable> failures = new ArrayList<>();

	private final AtomicInteger retries = new AtomicInteger();

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

	/** @param hook called before each retry with the retry's number (1 for the second attempt) */
	public void beforeRetry(IntConsumer hook) {
		this.beforeRetry = hook;
	}

	public int retries() {
		return this.retries.get();
	}

	public List<Throwable> failures() {
		synchronized (this.failures) {
			return List.copyOf(this.failures);
		}
	}

	public void reset() {
		this.retries.set(0);
		synchronized (this.failures) {
			this.failures.clear();
		}
		this.beforeRetry = (n) -> {
		};
	}

}
