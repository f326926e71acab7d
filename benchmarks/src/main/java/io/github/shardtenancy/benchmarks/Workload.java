package io.github.shardtenancy.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.benchmarks.app.domain.OrderService;

/**
 * The throughput workload: {@code threads} workers, each cycling through its own tenants (one order each, so workers
 * never contend for a row), running one {@link OrderService#addLine} transaction after the other for a fixed time.
 */
final class Workload {

	/** One tenant and its order. */
	record TenantOrder(String tenantId, UUID orderId) {
	}

	private final List<List<TenantOrder>> perThread;

	/** Worker thread names start with this, so a profile tells the two sides apart. */
	private final String threadName;

	private Workload(List<List<TenantOrder>> perThread, String threadName) {
		this.perThread = perThread;
		this.threadName = threadName;
	}

	/**
	 * Creates the tenants' orders through the service (the tenants must already be routable).
	 * @param service the application's service
	 * @param prefix tenant id prefix
	 * @param threads workers
	 * @param tenantsPerThread tenants per worker
	 * @param createTenant called for each tenant before its order is created (the library registers it)
	 * @return the workload
	 */
	static Workload create(OrderService service, String prefix, int threads, int tenantsPerThread,
			java.util.function.Consumer<String> createTenant) {
		List<List<TenantOrder>> perThread = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			List<TenantOrder> mine = new ArrayList<>();
			for (int k = 0; k < tenantsPerThread; k++) {
				String tenant = prefix + "-" + t + "-" + k;
				createTenant.accept(tenant);
				UUID order = UUID.randomUUID();
				TenantContext.runAs(tenant, () -> service.createOrder(order));
				mine.add(new TenantOrder(tenant, order));
			}
			perThread.add(mine);
		}
		return new Workload(perThread, "bench-worker-" + prefix);
	}

	/**
	 * What one run measured.
	 * @param transactionsPerSecond committed transactions per second of wall-clock time
	 * @param committed committed transactions
	 * @param workerCpuNanos CPU time the worker threads used (their own, as the JVM counts it; with an in-memory
	 * database this includes the database's work, with a server it does not)
	 */
	record Result(double transactionsPerSecond, long committed, long workerCpuNanos) {
	}

	/**
	 * Runs the workload.
	 * @param service the application's service
	 * @param duration how long
	 * @return committed transactions per second
	 * @throws IllegalStateException if any transaction failed
	 */
	double run(OrderService service, Duration duration) throws InterruptedException {
		return measure(service, duration).transactionsPerSecond();
	}

	/**
	 * Runs the workload and also counts the worker threads' CPU time, a figure that load from other processes on
	 * the machine disturbs far less than wall-clock throughput.
	 * @param service the application's service
	 * @param duration how long
	 * @return what was measured
	 * @throws IllegalStateException if any transaction failed
	 */
	Result measure(OrderService service, Duration duration) throws InterruptedException {
		java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
		LongAdder cpu = new LongAdder();
		LongAdder committed = new LongAdder();
		AtomicReference<Throwable> failure = new AtomicReference<>();
		CountDownLatch start = new CountDownLatch(1);
		List<Thread> workers = new ArrayList<>();
		long[] window = new long[2];
		for (List<TenantOrder> mine : this.perThread) {
			Thread w = new Thread(() -> {
				long cpuStart = mx.getCurrentThreadCpuTime();
				try {
					start.await();
					long end = window[1];
					int i = 0;
					while (System.nanoTime() < end && failure.get() == null) {
						TenantOrder to = mine.get(i++ % mine.size());
						try (TenantContext.Scope scope = TenantContext.bind(to.tenantId())) {
							service.addLine(to.orderId(), 1);
						}
						committed.increment();
					}
				}
				catch (Throwable ex) {
					failure.compareAndSet(null, ex);
				}
				finally {
					cpu.add(mx.getCurrentThreadCpuTime() - cpuStart);
				}
			}, this.threadName + "-" + workers.size());
			workers.add(w);
			w.start();
		}
		window[0] = System.nanoTime();
		window[1] = window[0] + duration.toNanos();
		start.countDown();
		for (Thread w : workers) {
			w.join();
		}
		long elapsed = System.nanoTime() - window[0];
		if (failure.get() != null) {
			throw new IllegalStateException("A benchmark transaction failed: " + failure.get(), failure.get());
		}
		return new Result(committed.sum() / (elapsed / 1e9), committed.sum(), cpu.sum());
	}

}
