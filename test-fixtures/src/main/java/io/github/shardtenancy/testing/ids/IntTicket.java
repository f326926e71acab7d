package io.github.shardtenancy.testing.ids;

import io.github.shardtenancy.ShardSafeId;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import org.hibernate.annotations.TenantId;

/** The id tests' tenant entity: a ticket with a {@link ShardSafeId} Integer id, on table {@code int_ticket}. */
@Entity
@Table(name = "int_ticket")
public class IntTicket {

	@Id
	@ShardSafeId
	private Integer id;

	@TenantId
	@Column(name = "tenant_id")
	private String tenantId;

	private String body;

	protected IntTicket() {
	}

	/** @param body the text */
	public IntTicket(String body) {
		this.body = body;
	}

	/** @return the id, {@code null} until persisted */
	public Integer getId() {
		return this.id;
	}

	/** @return the text */
	public String getBody() {
		return this.body;
	}

}
