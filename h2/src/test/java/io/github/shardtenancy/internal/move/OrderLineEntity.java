package io.github.shardtenancy.internal.move;

import java.util.UUID;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.ManyToOne;
import jakarta.persistence.Table;
import org.hibernate.annotations.TenantId;

/** The {@code order_line} table as an entity. */
@Entity
@Table(name = "order_line")
public class OrderLineEntity {

	@Id
	private UUID id;

	@ManyToOne
	@JoinColumn(name = "order_id")
	private OrderEntity order;

	@TenantId
	@Column(name = "tenant_id")
	private String tenantId;

	private int qty;

	protected OrderLineEntity() {
	}

}
