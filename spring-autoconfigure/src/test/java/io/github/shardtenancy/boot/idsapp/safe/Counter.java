package io.github.shardtenancy.boot.idsapp.safe;

import io.github.shardtenancy.ShardSafeId;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import org.hibernate.annotations.TenantId;

/** A tenant entity with a {@link ShardSafeId} Long id. */
@Entity
@Table(name = "counter")
public class Counter {

	@Id
	@ShardSafeId
	private Long id;

	@TenantId
	@Column(name = "tenant_id")
	private String tenantId;

	private String label;

	protected Counter() {
	}

	public Counter(String label) {
		this.label = label;
	}

	public Long getId() {
		return this.id;
	}

}
