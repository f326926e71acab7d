package io.github.shardtenancy.benchmarks;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.benchmarks.app.domain.OrderService;

/**
 * A throughput workload: {@code threads} workers, each cycling through its own orders (so workers never contend for
 * a row), running one transaction after the other for a fixed time. What a transaction is and which tenants own the
 * orders is the {@link Kind}.
 */
final class Workload {

	/** The workloads of the routing figure. */
	enum Kind {

		/**
		 * Write-only: every transaction is {@link OrderService#addLine} (read an order, modify it, insert a line);
		 * each worker cycles through its own tenants, one order each.
		 */
		WRITE("", "write-only"),

		/**
		 * Web-like: of every 5 transactions 4 are {@link OrderService#readOrder} (read-only, two reads) and one is
		 * {@link OrderService#addLine}; tenants as in {@link #WRITE}.
		 */
		WEB("-web", "web-like, 80 % read-only"),

		/**
		 * Hot tenant: every worker writes as in {@link #WRITE}, but all orders belong to one tenant (each worker its
		 * own orders, so they do not contend on rows, only on whatever the tenant's transactions share).
		 */
		HOT("-hot", "hot tenant, write-only");

		/** Suffix of the figure keys ({@code h2}, {@code pg}) of this workload. */
		final String keySuffix;

		/** How the figure names it. */
		final String label;

		Kind(String keySuffix, String label) {
			this.keySuffix = keySuffix;
			this.label = label;
		}

	}

	/** One order of a tenant, and a line of it that read-only transactions read. */
	record TenantOrder(String tenantId, UUID orderId, UUID lineId) {
	}

	private final Kind kind;

	private final List<List<TenantOrder>> perThread;

	/** Worker thread names start with this, so a profile tells the two sides apart. */
	private final String threadName;

	private Workload(Kind kind, List<List<TenantOrder>> perThread, String threadName) {
		this.kind = kind;
		this.perThread = perThread;
		this.threadName = threadName;
	}

	/**
	 * Creates the tenants' orders through the service (the tenants must already be routable).
	 * @param kind the workload
	 * @param service the application's service
	 * @param prefix tenant id prefix, distinct per side and workload
	 * @param threads workers
	 * @param ordersPerThread orders each worker cycles through (each of its own tenant, but for {@link Kind#HOT})
	 * @param createTenant called once for each tenant before its first order is created (the library registers it)
	 * @return the workload
	 */
	static Workload create(Kind kind, OrderService service, String prefix, int threads, int ordersPerThread,
			Consumer<String> createTenant) {
		List<List<TenantOrder>> perThread = new ArrayList<>();
		Set<String> created = new HashSet<>();
		for (int t = 0; t < threads; t++) {
			List<TenantOrder> mine = new ArrayList<>();
			for (int k = 0; k < ordersPerThread; k++) {
				String tenant = (kind == Kind.HOT) ? prefix : prefix + "-" + t + "-" + k;
				if (created.add(tenant)) {
					createTenant.accept(tenant);
				}
				UUID order = UUID.randomUUID();
				UUID line = UUID.randomUUID();
				TenantContext.runAs(tenant, () -> service.createOrder(order, line));
				mine.add(new TenantOrder(tenant, order, line));
			}
			perThread.add(mine);
		}
		return new Workload(kind, perThread, "bench-worker-" + prefix);
	}

	/** @return the prefix of the worker threads' names */
	String threadName() {
		return this.threadName;
	}

	/**
	 * What one run measured.
	 * @param transactionsPerSecond committed transactions per second of wall-clock time
	 * @param committed committed transactions
	 * @param workerCpuNanos CPU time the worker threads used (their own, as the JVM counts it; with an in-memory
	 * database this includes the database's work, with a server it does not)
	 * @param otherThreadsCpuNanos CPU time every other live Java thread of the process used during the run (pool
	 * housekeeping, the library's watcher and cache maintenance, ...; not the JVM's GC and compiler threads)
	 * @param processCpuNanos CPU time the whole process used during the run (workers, other threads, GC, JIT), or -1
	 * if the JVM does not tell
	 */
	record Result(double transactionsPerSecond, long committed, long workerCpuNanos, long otherThreadsCpuNanos,
			long processCpuNanos) {

		/** @return worker and other threads' CPU per committed transaction, ns */
		double clientCpuPerTransaction() {
			return (this.workerCpuNanos + this.otherThreadsCpuNanos) / (double) Math.max(1, this.committed);
		}

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
	 * Runs the workload and counts the CPU time of the worker threads and of the process's other threads, figures
	 * that load from other processes on the machine disturbs far less than wall-clock throughput.
	 * @param service the application's service
	 * @param duration how long
	 * @return what was measured
	 * @throws IllegalStateException if any transaction failed
	 */
	Result measure(OrderService service, Duration duration) throws InterruptedException {
		java.lang.management.ThreadMXBean mx = ManagementFactory.getThreadMXBean();
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
						TenantOrder to = mine.get(i % mine.size());
						try (TenantContext.Scope scope = TenantContext.bind(to.tenantId())) {
							if (this.kind == Kind.WEB && i % 5 != 0) {
								service.readOrder(to.orderId(), to.lineId());
							}
							else {
								service.addLine(to.orderId(), 1);
							}
						}
						i++;
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
		}
		Map<Long, Long> othersBefore = threadCpu(mx);
		long processBefore = processCpu();
		for (Thread w : workers) {
			w.start();
		}
		window[0] = System.nanoTime();
		window[1] = window[0] + duration.toNanos();
		start.countDown();
		for (Thread w : workers) {
			w.join();
		}
		long elapsed = System.nanoTime() - window[0];
		long processAfter = processCpu();
		Map<Long, Long> othersAfter = threadCpu(mx);
		if (failure.get() != null) {
			throw new IllegalStateException("A benchmark transaction failed: " + failure.get(), failure.get());
		}
		Set<Long> exclude = new HashSet<>();
		exclude.add(Thread.currentThread().getId());
		for (Thread w : workers) {
			exclude.add(w.getId());
		}
		long others = 0;
		for (Map.Entry<Long, Long> after : othersAfter.entrySet()) {
			if (!exclude.contains(after.getKey())) {
				others += Math.max(0, after.getValue() - othersBefore.getOrDefault(after.getKey(), 0L));
			}
		}
		return new Result(committed.sum() / (elapsed / 1e9), committed.sum(), cpu.sum(), others,
				(processBefore < 0 || processAfter < 0) ? -1 : processAfter - processBefore);
	}

	/** @return CPU time (ns) of every live thread, by id; threads the JVM cannot measure are left out */
	private static Map<Long, Long> threadCpu(java.lang.management.ThreadMXBean mx) {
		Map<Long, Long> cpu = new HashMap<>();
		for (long id : mx.getAllThreadIds()) {
			long nanos = mx.getThreadCpuTime(id);
			if (nanos >= 0) {
				cpu.put(id, nanos);
			}
		}
		return cpu;
	}

	/** @return the process's CPU time (ns), or -1 if the JVM does not tell */
	private static long processCpu() {
		return (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os)
				? os.getProcessCpuTime() : -1;
	}

}
