package io.github.shardtenancy.sample.orders;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;

import jakarta.persistence.CascadeType;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.FetchType;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.ManyToOne;
import jakarta.persistence.OneToMany;
import jakarta.persistence.OrderBy;
import jakarta.persistence.Table;
import org.hibernate.annotations.TenantId;

/**
 * An order of one tenant's customer (table {@code orders}), with its lines. Not thread-safe (a JPA entity).
 */
@Entity
@Table(name = "orders")
public class PurchaseOrder {

	@Id
	@GeneratedValue(strategy = GenerationType.UUID)
	private UUID id;

	@TenantId
	@Column(name = "tenant_id", nullable = false, updatable = false, length = 64)
	private String tenantId;

	@ManyToOne(fetch = FetchType.LAZY, optional = false)
	@JoinColumn(name = "customer_id", nullable = false)
	private Customer customer;

	@Column(name = "created_at", nullable = false)
	private Instant createdAt;

	@OneToMany(mappedBy = "order", cascade = CascadeType.ALL, orphanRemoval = true)
	@OrderBy("position")
	private List<OrderLine> lines = new ArrayList<>();

	protected PurchaseOrder() {
	}

	/**
	 * @param customer who ordered, a customer of the same tenant, never {@code null}
	 * @param createdAt when, never {@code null}
	 */
	public PurchaseOrder(Customer customer, Instant createdAt) {
		this.customer = customer;
		this.createdAt = createdAt;
	}

	/**
	 * Adds a line at the end.
	 * @param product the product name, not blank
	 * @param quantity how many, at least 1
	 * @return the new line
	 */
	public OrderLine addLine(String product, int quantity) {
		OrderLine line = new OrderLine(this, this.lines.size() + 1, product, quantity);
		this.lines.add(line);
		return line;
	}

	/** @return the id, {@code null} until persisted */
	public UUID getId() {
		return this.id;
	}

	/** @return the owning tenant, {@code null} until persisted */
	public String getTenantId() {
		return this.tenantId;
	}

	/** @return who ordered */
	public Customer getCustomer() {
		return this.customer;
	}

	/** @return when the order was placed */
	public Instant getCreatedAt() {
		return this.createdAt;
	}

	/** @return the lines in order, unmodifiable */
	public List<OrderLine> getLines() {
		return Collections.unmodifiableList(this.lines);
	}

}
