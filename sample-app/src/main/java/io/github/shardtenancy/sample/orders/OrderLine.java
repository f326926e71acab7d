package io.github.shardtenancy.sample.orders;

import java.util.UUID;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.FetchType;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.ManyToOne;
import jakarta.persistence.Table;
import org.hibernate.annotations.TenantId;

/**
 * One line of an order (table {@code order_lines}). Carries the tenant column like every tenant table, so that a move
 * copies it and the fence checks its writes. Not thread-safe (a JPA entity).
 */
@Entity
@Table(name = "order_lines")
public class OrderLine {

	@Id
	@GeneratedValue(strategy = GenerationType.UUID)
	private UUID id;

	@TenantId
	@Column(name = "tenant_id", nullable = false, updatable = false, length = 64)
	private String tenantId;

	@ManyToOne(fetch = FetchType.LAZY, optional = false)
	@JoinColumn(name = "order_id", nullable = false)
	private PurchaseOrder order;

	@Column(name = "line_no", nullable = false)
	private int position;

	@Column(name = "product", nullable = false, length = 200)
	private String product;

	@Column(name = "quantity", nullable = false)
	private int quantity;

	protected OrderLine() {
	}

	OrderLine(PurchaseOrder order, int position, String product, int quantity) {
		this.order = order;
		this.position = position;
		this.product = product;
		this.quantity = quantity;
	}

	/** @return the id, {@code null} until persisted */
	public UUID getId() {
		return this.id;
	}

	/** @return the owning tenant, {@code null} until persisted */
	public String getTenantId() {
		return this.tenantId;
	}

	/** @return the line's position in its order, from 1 */
	public int getPosition() {
		return this.position;
	}

	/** @return the product name */
	public String getProduct() {
		return this.product;
	}

	/** @return how many, at least 1 */
	public int getQuantity() {
		return this.quantity;
	}

}
