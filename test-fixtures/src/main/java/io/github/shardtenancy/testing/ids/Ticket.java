package io.github.shardtenancy.testing.ids;

import io.github.shardtenancy.ShardSafeId;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import org.hibernate.annotations.TenantId;

/** The id tests' tenant entity: a ticket with a {@link ShardSafeId} Long id, on table {@code ticket}. */
@Entity
@Table(name = "ticket")
public class Ticket {

	@Id
	@ShardSafeId
	private Long id;

	@TenantId
	@Column(name = "tenant_id")
	private String tenantId;

	private String body;

	protected Ticket() {
	}

	/** @param body the text */
	public Ticket(String body) {
		this.body = body;
	}

	/** @return the id, {@code null} until persisted */
	public Long getId() {
		return this.id;
	}

	/** @return the text */
	public String getBody() {
		return this.body;
	}

}
