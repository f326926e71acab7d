package io.github.shardtenancy.it.boot.rerun;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.core.retry.RetryListener;
import org.springframework.core.retry.RetryPolicy;
import org.springframework.core.retry.RetryState;
import org.springframework.core.retry.Retryable;
import org.springframework.stereotype.Component;

/** Observes the automatic retry: counts retries, records failures, and runs a test's hook before each retry. */
@Component
public class RerunAttempts implements RetryListener {

	private final AtomicInteger retries = new AtomicInteger();

	private final List<Throwable> failures = new ArrayList<>();

	private volatile Runnable beforeRetry = () -> {
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
		this.retries.incrementAndGet();
		this.beforeRetry.run();
	}

	/** @param hook run before each retry (for example to thaw a frozen tenant) */
	public void beforeRetry(Runnable hook) {
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
		this.beforeRetry = () -> {
		};
	}

}
