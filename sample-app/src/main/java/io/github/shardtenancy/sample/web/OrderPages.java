package io.github.shardtenancy.sample.web;

import java.util.List;

import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.sample.orders.InvalidOrderException;
import io.github.shardtenancy.sample.orders.OrderService;
import io.github.shardtenancy.sample.orders.OrderView;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Controller;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.util.HtmlUtils;
import org.springframework.web.util.UriComponentsBuilder;

/**
 * Server-rendered order pages of a tenant, under {@code /t/{tenant}/orders}: a plain HTML list and a form whose post
 * redirects back to the list (post/redirect/get), no JavaScript. The tenant is in the path, where the starter's path
 * resolver ({@code shard-tenancy.web.resolvers: header,path}) reads it and binds it for each request, the form post
 * and the redirected request included; this controller never reads it from the path itself.
 */
@Controller
@RequestMapping("/t/{tenant}/orders")
public class OrderPages {

	private final OrderService orders;

	/** @param orders the order service */
	public OrderPages(OrderService orders) {
		this.orders = orders;
	}

	/** @return the bound tenant's orders as an HTML page, newest last */
	@GetMapping(produces = MediaType.TEXT_HTML_VALUE)
	public ResponseEntity<String> list() {
		String tenant = TenantContext.require("listing orders");
		List<OrderView> orders = this.orders.listOrders();
		StringBuilder rows = new StringBuilder();
		for (OrderView order : orders) {
			for (OrderView.Line line : order.lines()) {
				rows.append("<tr data-order=\"").append(order.id()).append("\"><td>").append(escape(order.customer()))
					.append("</td><td class=\"product\">").append(escape(line.product()))
					.append("</td><td class=\"quantity\">").append(line.quantity()).append("</td></tr>\n");
			}
		}
		return html(HttpStatus.OK, "Orders of " + tenant,
				"<p><a id=\"new-order\" href=\"" + base(tenant) + "/new\">New order</a></p>\n"
						+ "<table id=\"orders\"><thead><tr><th>Customer</th><th>Product</th><th>Quantity</th></tr></thead>"
						+ "<tbody>\n" + rows + "</tbody></table>\n");
	}

	/** @return the form for a new order of the bound tenant */
	@GetMapping(path = "/new", produces = MediaType.TEXT_HTML_VALUE)
	public ResponseEntity<String> form() {
		return form(HttpStatus.OK, TenantContext.require("ordering"), null);
	}

	/**
	 * Places the order of the form and redirects to the list (HTTP 303), or shows the form again with the reason (HTTP
	 * 400).
	 * @param customer the customer's name, optional
	 * @param product the product
	 * @param quantity how many
	 * @return the redirect, or the form with the reason
	 */
	@PostMapping(consumes = MediaType.APPLICATION_FORM_URLENCODED_VALUE)
	public ResponseEntity<String> place(@RequestParam(defaultValue = "") String customer,
			@RequestParam(defaultValue = "") String product, @RequestParam(defaultValue = "0") int quantity) {
		String tenant = TenantContext.require("placing an order");
		try {
			this.orders.placeOrder(customer, product, quantity);
		}
		catch (InvalidOrderException ex) {
			return form(HttpStatus.BAD_REQUEST, tenant, ex.getMessage());
		}
		return ResponseEntity.status(HttpStatus.SEE_OTHER)
			.location(UriComponentsBuilder.fromPath("/t/{tenant}/orders").buildAndExpand(tenant).encode().toUri())
			.build();
	}

	private static ResponseEntity<String> form(HttpStatus status, String tenant, @Nullable String error) {
		return html(status, "New order for " + tenant, ((error != null)
				? "<p id=\"error\" role=\"alert\">" + escape(error) + "</p>\n" : "")
				+ "<form id=\"order-form\" method=\"post\" action=\"" + base(tenant) + "\">\n"
				+ "<label>Customer <input id=\"customer\" name=\"customer\" value=\"Walk-in\"></label>\n"
				+ "<label>Product <input id=\"product\" name=\"product\" required></label>\n"
				+ "<label>Quantity <input id=\"quantity\" name=\"quantity\" type=\"number\" min=\"1\" value=\"1\"></label>\n"
				+ "<button id=\"place\" type=\"submit\">Place order</button>\n</form>\n"
				+ "<p><a href=\"" + base(tenant) + "\">Back to the orders</a></p>\n");
	}

	private static String base(String tenant) {
		// the tenant id rule (ASCII letters, digits and . _ : -) keeps it safe in a path and an attribute
		return "/t/" + escape(tenant) + "/orders";
	}

	private static ResponseEntity<String> html(HttpStatus status, String title, String body) {
		return ResponseEntity.status(status)
			.contentType(new MediaType(MediaType.TEXT_HTML, java.nio.charset.StandardCharsets.UTF_8))
			.body("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + escape(title)
					+ "</title></head>\n<body><h1 id=\"title\">" + escape(title) + "</h1>\n" + body + "</body></html>\n");
	}

	private static String escape(String text) {
		return HtmlUtils.htmlEscape(text);
	}

}
