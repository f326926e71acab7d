package io.github.shardtenancy.sample.demo;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;

import io.github.shardtenancy.ShardTenancyException;
import io.github.shardtenancy.TenantContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The demo's writers: each places orders for random tenants while the run lasts, recording an order id only after
 * the call returned (after its commit), and the attempts each call took. Thread-safe: every writer thread runs
 * {@link #write} with the same run.
 */
final class DemoWriters {

	private static final List<String> PRODUCTS = List.of("widget", "gadget", "sprocket", "gizmo", "doohickey");

	private static final Logger log = LoggerFactory.getLogger(DemoWriters.class);

	private final DemoOrderWriter writer;

	private final RetryObserver observer;

	private final Duration pause;

	DemoWriters(DemoOrderWriter writer, RetryObserver observer, Duration pause) {
		this.writer = writer;
		this.observer = observer;
		this.pause = pause;
	}

	void write(RunRecord run, BooleanSupplier running) {
		ThreadLocalRandom random = ThreadLocalRandom.current();
		while (running.getAsBoolean()) {
			String tenant = run.tenants.get(random.nextInt(run.tenants.size()));
			String product = PRODUCTS.get(random.nextInt(PRODUCTS.size()));
			int quantity = 1 + random.nextInt(5);
			CallTrace trace = this.observer.begin(tenant);
			AtomicInteger bodyRuns = new AtomicInteger();
			run.attempted.increment();
			try (TenantContext.Scope scope = TenantContext.bind(tenant)) {
				UUID id = this.writer.placeOrder(run.customers.get(tenant), product, quantity, bodyRuns);
				run.committed.get(tenant).add(id);
				run.committedCalls.increment();
				trace.committedId = id;
			}
			catch (ShardTenancyException ex) {
				run.typedFailures.computeIfAbsent(ex.getClass().getSimpleName(), k -> new LongAdder()).increment();
				log.warn("Writer call for tenant '{}' failed: {}", tenant, ex.getMessage());
			}
			catch (RuntimeException ex) {
				run.untyped(run.untypedFailures, "writer call for tenant '" + tenant + "'", ex);
			}
			finally {
				this.observer.end();
			}
			run.bodyRuns.add(bodyRuns.get());
			int attempts = Math.max(1, Math.max(trace.executions, bodyRuns.get()));
			run.histogram.computeIfAbsent(attempts, k -> new LongAdder()).increment();
			if (trace.committedId != null && trace.firstStaleRejection().isPresent()) {
				run.staleRetriedToSuccess.increment();
				run.narrated.compareAndSet(null, trace);
			}
			RunRecord.pause(this.pause);
		}
	}

}
