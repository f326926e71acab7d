package io.github.shardtenancy.benchmarks.app.domain;

import java.util.UUID;

import org.springframework.transaction.annotation.Transactional;

/**
 * The move figure's writes of order items, each in a transaction of its own, for the tenant bound on the calling
 * thread: an item added, one changed, one removed. Thread-safe.
 */
public class LineItemService {

	private final BenchLineItemRepository items;

	/** @param items the item repository */
	public LineItemService(BenchLineItemRepository items) {
		this.items = items;
	}

	/**
	 * @param orderId an order of the current tenant
	 * @param lineNo a number the order has no item of
	 */
	@Transactional
	public void add(UUID orderId, int lineNo) {
		this.items.save(new BenchLineItem(orderId, lineNo));
	}

	/**
	 * Adds one to an item's quantity, if the item exists.
	 * @param orderId an order of the current tenant
	 * @param lineNo the item's number
	 */
	@Transactional
	public void change(UUID orderId, int lineNo) {
		this.items.findById(new BenchLineItem.Key(orderId, lineNo)).ifPresent(BenchLineItem::addOne);
	}

	/**
	 * Removes an item, if it exists.
	 * @param orderId an order of the current tenant
	 * @param lineNo the item's number
	 */
	@Transactional
	public void remove(UUID orderId, int lineNo) {
		this.items.deleteById(new BenchLineItem.Key(orderId, lineNo));
	}

}
