package io.github.shardtenancy.boot.readme;

import java.time.Instant;
import java.util.UUID;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import org.hibernate.annotations.TenantId;

/** README's quick-start entity, as README shows it (its elided part is the column placed_at). */
@Entity
@Table(name = "orders")
public class PurchaseOrder {

	@Id
	@GeneratedValue(strategy = GenerationType.UUID)
	private UUID id;

	@TenantId
	@Column(name = "tenant_id", nullable = false, updatable = false, length = 64)
	private String tenantId;      // filled by Hibernate at flush; every query gets the tenant condition

	@Column(name = "placed_at", nullable = false)
	private Instant placedAt = Instant.now();

	public String getTenantId() {
		return this.tenantId;
	}

}
