package io.github.shardtenancy.it.boot.jpa;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.core.retry.RetryListener;
import org.springframework.core.retry.RetryPolicy;
import org.springframework.core.retry.RetryState;
import org.springframework.core.retry.Retryable;
import org.springframework.stereotype.Component;

/** Observes the automatic retry (the auto-configuration composes every {@link RetryListener} bean). */
@Component
public class Attempts implements RetryListener {

	private final AtomicInteger retries = new AtomicInteger();

	private final List<Throwable> failures = new ArrayList<>();

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
	}

	/** @return retries since the last reset */
	public int retries() {
		return this.retries.get();
	}

	/** @return each failed attempt's exception, in order */
	public List<Throwable> failures() {
		synchronized (this.failures) {
			return List.copyOf(this.failures);
		}
	}

	/** Forgets everything. */
	public void reset() {
		this.retries.set(0);
		synchronized (this.failures) {
			this.failures.clear();
		}
	}

}
