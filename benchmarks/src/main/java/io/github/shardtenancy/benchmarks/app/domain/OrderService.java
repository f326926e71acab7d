package io.github.shardtenancy.benchmarks.app.domain;

import java.util.UUID;
import java.util.concurrent.atomic.LongAdder;

import org.springframework.transaction.annotation.Transactional;

/**
 * The measured units of work, identical in both applications: a tenant-scoped write transaction that reads an order,
 * modifies it and inserts an order line ({@link #addLine}), and a read-only one that reads an order and one of its
 * lines ({@link #readOrder}). The tenant is whatever is bound on the calling thread. Thread-safe.
 */
public class OrderService {

	private final BenchOrderRepository orders;

	private final BenchOrderLineRepository lines;

	private final LongAdder attempts = new LongAdder();

	/**
	 * @param orders the order repository
	 * @param lines the order line repository
	 */
	public OrderService(BenchOrderRepository orders, BenchOrderLineRepository lines) {
		this.orders = orders;
		this.lines = lines;
	}

	/**
	 * Creates an order for the current tenant.
	 * @param id the order id
	 */
	@Transactional
	public void createOrder(UUID id) {
		this.orders.save(new BenchOrder(id));
	}

	/**
	 * Creates an order with one line for the current tenant, in one transaction.
	 * @param id the order id
	 * @param lineId the line's id
	 */
	@Transactional
	public void createOrder(UUID id, UUID lineId) {
		this.orders.save(new BenchOrder(id));
		this.lines.save(new BenchOrderLine(lineId, id, 0));
	}

	/**
	 * Reads an order and one of its lines, in one read-only transaction.
	 * @param orderId an order of the current tenant
	 * @param lineId a line of the current tenant
	 * @return the order's total plus the line's amount
	 * @throws IllegalStateException if the order or the line does not exist for the current tenant
	 */
	@Transactional(readOnly = true)
	public long readOrder(UUID orderId, UUID lineId) {
		long total = this.orders.findById(orderId)
			.orElseThrow(() -> new IllegalStateException("no order " + orderId))
			.getTotal();
		return total + this.lines.findById(lineId)
			.orElseThrow(() -> new IllegalStateException("no order line " + lineId))
			.getAmount();
	}

	/**
	 * Reads the order, adds to its total and inserts a line, in one transaction.
	 * @param orderId an order of the current tenant
	 * @param amount the line's amount
	 * @return the order's new revision
	 * @throws IllegalStateException if the order does not exist for the current tenant
	 */
	@Transactional
	public int addLine(UUID orderId, long amount) {
		this.attempts.increment();
		BenchOrder order = this.orders.findById(orderId)
			.orElseThrow(() -> new IllegalStateException("no order " + orderId));
		order.addToTotal(amount);
		this.lines.save(new BenchOrderLine(orderId, amount));
		return order.getRevision();
	}

	/** @return how many times {@link #addLine} was entered (each retry attempt counts) */
	public long attempts() {
		return this.attempts.sum();
	}

}
