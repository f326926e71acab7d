package io.github.shardtenancy.sample.live;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.TenantIds;
import io.github.shardtenancy.UnknownTenantException;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.TenantRouter;
import io.github.shardtenancy.sample.orders.OrderService;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.stereotype.Component;

/**
 * Bursts of writers for the live page: {@code threads} threads each place {@code ordersPerThread} orders for one
 * tenant through the application's own {@link OrderService}, so every order is an outermost transaction under the
 * library's retry, exactly like an order posted over HTTP. A failed order is counted by its exception type and the
 * writer goes on with the next one. Reports the last {@value #KEPT} bursts. Thread-safe.
 */
@Component
@ConditionalOnWebApplication
public class LiveBursts implements DisposableBean {

	/** How many bursts are reported. */
	static final int KEPT = 8;

	/** Most writer threads in one burst. */
	static final int MAX_THREADS = 16;

	/** Most orders per writer thread. */
	static final int MAX_ORDERS_PER_THREAD = 1_000_000;

	/** Longest pause between two orders of one writer thread, in milliseconds. */
	static final int MAX_PAUSE_MS = 1_000;

	/** The product every burst order is for. */
	static final String PRODUCT = "live-burst";

	private final OrderService orders;

	private final TenantAdmin directory;

	private final TenantRouter router;

	private final ExecutorService writers = Executors.newCachedThreadPool(Threads.named("live-burst-"));

	private final AtomicInteger ids = new AtomicInteger();

	private final Deque<Burst> bursts = new ConcurrentLinkedDeque<>();

	/**
	 * @param orders places the orders
	 * @param directory tells whether the tenant exists
	 * @param router the directory version an unknown tenant is reported with
	 */
	public LiveBursts(OrderService orders, TenantAdmin directory, TenantRouter router) {
		this.orders = orders;
		this.directory = directory;
		this.router = router;
	}

	/** One burst and its outcome so far. */
	static final class Burst {

		final int id;

		final String tenantId;

		final int threads;

		final int ordersPerThread;

		final int pauseMs;

		final Instant startedAt = Instant.now();

		final LongAdder committed = new LongAdder();

		final Map<String, LongAdder> failures = new ConcurrentHashMap<>();

		final AtomicInteger running;

		volatile boolean stopped;

		volatile String lastError;

		Burst(int id, String tenantId, int threads, int ordersPerThread, int pauseMs) {
			this.id = id;
			this.tenantId = tenantId;
			this.threads = threads;
			this.ordersPerThread = ordersPerThread;
			this.pauseMs = pauseMs;
			this.running = new AtomicInteger(threads);
		}

		Map<String, Long> failuresByType() {
			Map<String, Long> copy = new TreeMap<>();
			this.failures.forEach((type, count) -> copy.put(type, count.sum()));
			return copy;
		}

		void failed(RuntimeException ex) {
			this.failures.computeIfAbsent(ex.getClass().getSimpleName(), t -> new LongAdder()).increment();
			this.lastError = ex.getClass().getSimpleName() + ": " + ex.getMessage();
		}

	}

	/**
	 * Starts a burst; returns at once.
	 * @param tenantId the tenant, known to the directory and with at least one customer
	 * @param threads writer threads, 1 to {@value #MAX_THREADS}
	 * @param ordersPerThread orders each thread places, 1 to {@value #MAX_ORDERS_PER_THREAD}
	 * @param pauseMs milliseconds each thread waits after each order, 0 to {@value #MAX_PAUSE_MS}: a paced burst
	 * writes for long without growing the tenant by hundreds of thousands of rows (a move copies and verifies them all)
	 * @return the burst's id
	 * @throws io.github.shardtenancy.InvalidTenantIdException if the tenant id is invalid
	 * @throws UnknownTenantException if the directory does not know the tenant
	 * @throws IllegalArgumentException if a count is out of range
	 */
	public int start(String tenantId, int threads, int ordersPerThread, int pauseMs) {
		TenantIds.requireValid(tenantId);
		if (threads < 1 || threads > MAX_THREADS) {
			throw new IllegalArgumentException("threads must be between 1 and " + MAX_THREADS + ", was " + threads);
		}
		if (ordersPerThread < 1 || ordersPerThread > MAX_ORDERS_PER_THREAD) {
			throw new IllegalArgumentException("ordersPerThread must be between 1 and " + MAX_ORDERS_PER_THREAD
					+ ", was " + ordersPerThread);
		}
		if (pauseMs < 0 || pauseMs > MAX_PAUSE_MS) {
			throw new IllegalArgumentException("pauseMs must be between 0 and " + MAX_PAUSE_MS + ", was " + pauseMs);
		}
		if (this.directory.find(tenantId).isEmpty()) {
			throw new UnknownTenantException(tenantId, this.router.version());
		}
		Burst burst = new Burst(this.ids.incrementAndGet(), tenantId, threads, ordersPerThread, pauseMs);
		this.bursts.addFirst(burst);
		while (this.bursts.size() > KEPT) {
			this.bursts.pollLast();
		}
		for (int t = 0; t < threads; t++) {
			this.writers.execute(() -> write(burst));
		}
		return burst.id;
	}

	private void write(Burst burst) {
		try {
			TenantContext.runAs(burst.tenantId, () -> {
				UUID customer;
				try {
					customer = this.orders.firstCustomerId();
				}
				catch (RuntimeException ex) {
					burst.failed(ex);
					return;
				}
				for (int i = 0; i < burst.ordersPerThread && !burst.stopped
						&& !Thread.currentThread().isInterrupted(); i++) {
					try {
						this.orders.placeOrderFor(customer, PRODUCT, 1);
						burst.committed.increment();
					}
					catch (RuntimeException ex) {
						burst.failed(ex);
					}
					if (burst.pauseMs > 0) {
						try {
							Thread.sleep(burst.pauseMs);
						}
						catch (InterruptedException ex) {
							Thread.currentThread().interrupt();
						}
					}
				}
			});
		}
		finally {
			burst.running.decrementAndGet();
		}
	}

	/** Asks every running burst to stop after the order each writer is placing. */
	public void stopAll() {
		this.bursts.forEach(burst -> burst.stopped = true);
	}

	/** @return the last bursts, newest first */
	List<LiveState.Burst> bursts() {
		List<LiveState.Burst> list = new ArrayList<>();
		this.bursts.forEach(burst -> list.add(LiveState.Burst.of(burst)));
		return list;
	}

	@Override
	public void destroy() throws InterruptedException {
		stopAll();
		this.writers.shutdownNow();
		this.writers.awaitTermination(10, TimeUnit.SECONDS);
	}

}
