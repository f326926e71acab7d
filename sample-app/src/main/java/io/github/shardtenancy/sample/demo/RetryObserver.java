package io.github.shardtenancy.sample.demo;

import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

import io.github.shardtenancy.TenantRouter;
import io.github.shardtenancy.retry.FenceRejection;
import org.springframework.core.retry.RetryListener;
import org.springframework.core.retry.RetryPolicy;
import org.springframework.core.retry.RetryState;
import org.springframework.core.retry.Retryable;
import org.springframework.stereotype.Component;

/**
 * A Spring {@link RetryListener} bean: the library composes every such bean into its retry, so this sees each attempt
 * of every outermost transaction (first attempts included) and each retry. It counts failures by kind (fence
 * rejections by reason, genuine serialization failures, others), and fills the {@link CallTrace} a demo writer
 * opened on its thread. Thread-safe; listener callbacks run on the thread of the retried call.
 */
@Component
public class RetryObserver implements RetryListener {

	private final TenantRouter router;

	private final ThreadLocal<CallTrace> current = new ThreadLocal<>();

	private final LongAdder executions = new LongAdder();

	private final LongAdder retries = new LongAdder();

	private final LongAdder serializationFailures = new LongAdder();

	private final LongAdder otherFailures = new LongAdder();

	private final Map<String, LongAdder> rejectionsByReason = new ConcurrentHashMap<>();

	/** @param router the application's router, read (never changed) to show what the retries routed with */
	public RetryObserver(TenantRouter router) {
		this.router = router;
	}

	CallTrace begin(String tenantId) {
		CallTrace trace = new CallTrace(tenantId);
		this.current.set(trace);
		return trace;
	}

	void end() {
		this.current.remove();
	}

	void reset() {
		this.executions.reset();
		this.retries.reset();
		this.serializationFailures.reset();
		this.otherFailures.reset();
		this.rejectionsByReason.clear();
	}

	@Override
	public void onRetryableExecution(RetryPolicy retryPolicy, Retryable<?> retryable, RetryState retryState) {
		this.executions.increment();
		CallTrace trace = this.current.get();
		if (trace != null) {
			trace.executions++;
		}
		if (retryState.isSuccessful()) {
			if (trace != null) {
				trace.cachedAtSuccess = this.router.cached(trace.tenantId).orElse(null);
			}
			return;
		}
		Throwable failure = retryState.getLastException();
		Optional<FenceRejection> rejection = FenceRejection.find(failure);
		if (rejection.isPresent()) {
			this.rejectionsByReason.computeIfAbsent(rejection.get().reason(), r -> new LongAdder()).increment();
		}
		else if (FenceRejection.findSerializationFailure(failure).isPresent()) {
			this.serializationFailures.increment();
		}
		else {
			this.otherFailures.increment();
		}
		if (trace != null) {
			trace.failures.add(new CallTrace.Failure(retryState.getRetryCount() + 1, failure.getClass().getSimpleName(),
					rejection.orElse(null), failure.getMessage()));
		}
	}

	@Override
	public void beforeRetry(RetryPolicy retryPolicy, Retryable<?> retryable, RetryState retryState) {
		this.retries.increment();
		CallTrace trace = this.current.get();
		if (trace != null) {
			trace.retries++;
			if (trace.cachedBeforeFirstRetry == null) {
				trace.cachedBeforeFirstRetry = this.router.cached(trace.tenantId);
			}
		}
	}

	/** @return attempts of outermost transactions seen so far, first attempts included */
	public long executions() {
		return this.executions.sum();
	}

	/** @return retries started so far (attempts after a failed one) */
	public long retries() {
		return this.retries.sum();
	}

	/** @return failed attempts that were genuine serialization failures (SQLSTATE 40001 without the fence marker) */
	public long serializationFailures() {
		return this.serializationFailures.sum();
	}

	/** @return failed attempts that were neither a fence rejection nor a serialization failure */
	public long otherFailures() {
		return this.otherFailures.sum();
	}

	/**
	 * @return failed attempts that the shard fence rejected, by the rejection's reason ({@code FROZEN},
	 * {@code STALE}, ...), sorted by reason; a copy
	 */
	public Map<String, Long> rejectionsByReason() {
		Map<String, Long> copy = new TreeMap<>();
		this.rejectionsByReason.forEach((reason, count) -> copy.put(reason, count.sum()));
		return copy;
	}

}
