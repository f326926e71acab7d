package io.github.shardtenancy.sample.demo;

import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.shardtenancy.sample.orders.OrderService;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * The demo writers' transaction: one order with one line for the tenant bound on the thread. It is the outermost
 * {@code @Transactional}, hence the retry boundary; {@link OrderService#placeOrderFor} joins its transaction and is
 * never retried on its own. It writes without reading first (the customer is referenced by id): a transaction the
 * source admitted while the tenant was FROZEN can still be running when the mover, after the flip, deletes the
 * source's rows, and a read in it would then find the tenant empty (writes are fenced per row; reads are not).
 */
@Service
public class DemoOrderWriter {

	private final OrderService orders;

	/** @param orders the order service */
	public DemoOrderWriter(OrderService orders) {
		this.orders = orders;
	}

	/**
	 * Places an order, counting each run of the body. A rejection at transaction begin happens before the body, so
	 * {@code bodyRuns} can be lower than the attempts the retry made (on H2; on PostgreSQL the begin travels with the
	 * transaction's first query, so its rejection comes from inside the body).
	 * @param customerId the tenant's customer, referenced without a read
	 * @param product the product
	 * @param quantity how many, at least 1
	 * @param bodyRuns incremented at the start of every run of this method's body
	 * @return the id of the order, committed once the call returns
	 */
	@Transactional
	public UUID placeOrder(UUID customerId, String product, int quantity, AtomicInteger bodyRuns) {
		bodyRuns.incrementAndGet();
		return this.orders.placeOrderFor(customerId, product, quantity);
	}

}
