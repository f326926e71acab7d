package io.github.shardtenancy.benchmarks.app.library;

import java.util.concurrent.atomic.LongAdder;

import org.springframework.core.retry.RetryListener;
import org.springframework.core.retry.RetryPolicy;
import org.springframework.core.retry.Retryable;

/**
 * Counts the retries the library's retry layer makes (a Spring {@link RetryListener} bean, which the
 * auto-configuration composes into its retry). A transaction's attempts are one plus its retries, including attempts
 * rejected at transaction begin, before the method body ran. Thread-safe.
 */
public class RetryCounter implements RetryListener {

	private final LongAdder retries = new LongAdder();

	@Override
	public void beforeRetry(RetryPolicy retryPolicy, Retryable<?> retryable) {
		this.retries.increment();
	}

	/** @return retries so far */
	public long retries() {
		return this.retries.sum();
	}

}
