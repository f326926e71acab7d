package io.github.shardtenancy.sample.orders;

import java.time.Clock;
import java.util.List;
import java.util.UUID;

import io.github.shardtenancy.TenantContext;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Places and lists orders of the tenant bound on the calling thread ({@link TenantContext}).
 *
 * <p>Each public method is a transaction on the tenant's shard and, being the outermost {@code @Transactional}, the
 * boundary of the library's automatic retry: when the shard fence rejects the transaction (a stale route or a tenant
 * being moved), the whole method runs again, with a fresh persistence context, on the shard the directory now names.
 * The methods therefore have no side effects outside the database. Thread-safe.
 */
@Service
public class OrderService {

	private final CustomerRepository customers;

	private final PurchaseOrderRepository orders;

	private final Clock clock;

	/**
	 * @param customers the customers
	 * @param orders the orders
	 */
	public OrderService(CustomerRepository customers, PurchaseOrderRepository orders) {
		this.customers = customers;
		this.orders = orders;
		this.clock = Clock.systemUTC();
	}

	/**
	 * Places an order with one line for the current tenant.
	 * @param customerName the customer, created if the tenant has none of that name; {@code null} or blank for the
	 * tenant's first customer by name
	 * @param product the product, not blank
	 * @param quantity how many, at least 1
	 * @return the placed order
	 * @throws InvalidOrderException if the product is blank, the quantity below 1, or no customer is named and the
	 * tenant has none
	 * @throws io.github.shardtenancy.NoTenantBoundException if no tenant is bound
	 * @throws io.github.shardtenancy.UnknownTenantException if the directory does not know the tenant
	 * @throws io.github.shardtenancy.RetriesExhaustedException if the shard fence kept rejecting it
	 */
	@Transactional
	public OrderView placeOrder(String customerName, String product, int quantity) {
		TenantContext.require("placing an order");
		if (product == null || product.isBlank()) {
			throw new InvalidOrderException("product must not be blank");
		}
		if (quantity < 1) {
			throw new InvalidOrderException("quantity must be at least 1, was " + quantity);
		}
		Customer customer = customer(customerName);
		PurchaseOrder order = new PurchaseOrder(customer, this.clock.instant());
		order.addLine(product.strip(), quantity);
		// flushed here so that Hibernate has filled the @TenantId attributes (it does so when it inserts)
		return OrderView.of(this.orders.saveAndFlush(order));
	}

	private Customer customer(String name) {
		if (name == null || name.isBlank()) {
			return this.customers.findFirstByOrderByNameAsc()
				.orElseThrow(() -> new InvalidOrderException("tenant '" + TenantContext.current()
						+ "' has no customer yet: name one with \"customer\""));
		}
		String stripped = name.strip();
		return this.customers.findByName(stripped).orElseGet(() -> this.customers.save(new Customer(stripped)));
	}

	/**
	 * Places an order with one line for an existing customer of the current tenant, without reading anything first:
	 * the customer is referenced by id, so the transaction's only statements are the two inserts.
	 * @param customerId the customer's id
	 * @param product the product, not blank
	 * @param quantity how many, at least 1
	 * @return the new order's id
	 * @throws InvalidOrderException if the product is blank or the quantity below 1
	 * @throws io.github.shardtenancy.NoTenantBoundException if no tenant is bound
	 * @throws io.github.shardtenancy.UnknownTenantException if the directory does not know the tenant
	 * @throws io.github.shardtenancy.RetriesExhaustedException if the shard fence kept rejecting it
	 */
	@Transactional
	public UUID placeOrderFor(UUID customerId, String product, int quantity) {
		TenantContext.require("placing an order");
		if (product == null || product.isBlank()) {
			throw new InvalidOrderException("product must not be blank");
		}
		if (quantity < 1) {
			throw new InvalidOrderException("quantity must be at least 1, was " + quantity);
		}
		PurchaseOrder order = new PurchaseOrder(this.customers.getReferenceById(customerId), this.clock.instant());
		order.addLine(product.strip(), quantity);
		return this.orders.save(order).getId();
	}

	/**
	 * @return the id of the current tenant's first customer by name
	 * @throws InvalidOrderException if the tenant has no customer
	 * @throws io.github.shardtenancy.NoTenantBoundException if no tenant is bound
	 */
	@Transactional(readOnly = true)
	public UUID firstCustomerId() {
		return customer(null).getId();
	}

	/**
	 * Creates a customer for the current tenant.
	 * @param name the name, not blank, unique within the tenant
	 * @return the customer's id
	 * @throws InvalidOrderException if the name is blank
	 * @throws io.github.shardtenancy.NoTenantBoundException if no tenant is bound
	 */
	@Transactional
	public UUID createCustomer(String name) {
		TenantContext.require("creating a customer");
		if (name == null || name.isBlank()) {
			throw new InvalidOrderException("customer name must not be blank");
		}
		return this.customers.save(new Customer(name.strip())).getId();
	}

	/**
	 * @return the current tenant's orders, oldest first
	 * @throws io.github.shardtenancy.NoTenantBoundException if no tenant is bound
	 * @throws io.github.shardtenancy.UnknownTenantException if the directory does not know the tenant
	 */
	@Transactional(readOnly = true)
	public List<OrderView> listOrders() {
		TenantContext.require("listing orders");
		return this.orders.findAllWithLines().stream().map(OrderView::of).toList();
	}

	/**
	 * Counts the current tenant's orders. Joins the caller's transaction when there is one (the nightly job's, one per
	 * tenant).
	 * @return how many orders the current tenant has
	 * @throws io.github.shardtenancy.NoTenantBoundException if no tenant is bound
	 */
	@Transactional(readOnly = true)
	public long countOrders() {
		TenantContext.require("counting orders");
		return this.orders.count();
	}

}
