package io.github.shardtenancy.internal.move;

import java.util.ArrayList;
import java.util.List;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.OneToMany;
import jakarta.persistence.Table;
import org.hibernate.annotations.TenantId;

/** The {@code customer_order} table as an entity, for metamodel discovery and Hibernate writes. */
@Entity
@Table(name = "customer_order")
public class OrderEntity {

	@Id
	private Long id;

	@TenantId
	@Column(name = "tenant_id")
	private String tenantId;

	private int amount;

	private String label;

	@OneToMany(mappedBy = "order")
	private List<OrderLineEntity> lines = new ArrayList<>();

	protected OrderEntity() {
	}

	OrderEntity(long id, int amount) {
		this.id = id;
		this.amount = amount;
		this.label = "order " + id;
	}

}
