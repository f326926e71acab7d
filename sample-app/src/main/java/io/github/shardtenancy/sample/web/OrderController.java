package io.github.shardtenancy.sample.web;

import java.util.List;

import io.github.shardtenancy.sample.orders.InvalidOrderException;
import io.github.shardtenancy.sample.orders.OrderService;
import io.github.shardtenancy.sample.orders.OrderView;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /orders} and {@code GET /orders} for the tenant named in the request's tenant header
 * ({@code X-Tenant-Id} by default). The library's web filter binds that tenant for the request, so this controller
 * never sees tenant ids; the library's errors are answered by the starter's problem details, the sample's own by
 * {@link ApiErrors}.
 */
@RestController
@RequestMapping("/orders")
public class OrderController {

	private final OrderService orders;

	/** @param orders the order service */
	public OrderController(OrderService orders) {
		this.orders = orders;
	}

	/**
	 * The body of {@code POST /orders}.
	 * @param customer the customer's name, optional: the tenant's first customer when absent
	 * @param product the product, required
	 * @param quantity how many, required, at least 1
	 */
	public record NewOrder(String customer, String product, Integer quantity) {
	}

	/**
	 * Places an order with one line.
	 * @param body the order
	 * @return the placed order, with HTTP 201
	 */
	@PostMapping
	@ResponseStatus(HttpStatus.CREATED)
	public OrderView create(@RequestBody NewOrder body) {
		if (body.quantity() == null) {
			throw new InvalidOrderException("quantity is required");
		}
		return this.orders.placeOrder(body.customer(), body.product(), body.quantity());
	}

	/** @return the tenant's orders, oldest first */
	@GetMapping
	public List<OrderView> list() {
		return this.orders.listOrders();
	}

}
