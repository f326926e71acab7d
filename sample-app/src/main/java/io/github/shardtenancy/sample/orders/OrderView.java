package io.github.shardtenancy.sample.orders;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * An order as the API shows it: a detached, immutable copy made inside the transaction.
 *
 * @param id the order id
 * @param tenantId the owning tenant
 * @param customer the customer's name
 * @param createdAt when it was placed
 * @param lines its lines, in order
 */
public record OrderView(UUID id, String tenantId, String customer, Instant createdAt, List<Line> lines) {

	public OrderView {
		lines = List.copyOf(lines);
	}

	/**
	 * One line.
	 * @param product the product name
	 * @param quantity how many
	 */
	public record Line(String product, int quantity) {
	}

	static OrderView of(PurchaseOrder order) {
		return new OrderView(order.getId(), order.getTenantId(), order.getCustomer().getName(), order.getCreatedAt(),
				order.getLines().stream().map(l -> new Line(l.getProduct(), l.getQuantity())).toList());
	}

}
